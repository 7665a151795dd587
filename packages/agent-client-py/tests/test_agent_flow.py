"""The Python client against a started system (scripts/python-client.sh test starts `npm start` and sets the URLs):
sign in with SEP-53, buy a share with a locally signed envelope (and resend it: the first result comes back),
read holdings, follow the sale on the event feed; refusals are AgentApiError with the envelope's code."""

from __future__ import annotations

import os
import time
from typing import Callable, TypeVar

import httpx
import pytest
from stellar_sdk import Keypair

from dob_agent_client import AgentApiError, AgentClient

API = os.environ.get("DOB_API_URL", "http://127.0.0.1:3000")
DEVNET = os.environ.get("DOB_DEVNET_URL", "http://127.0.0.1:8000")
NET = 9
T = TypeVar("T")


def eventually(what: str, probe: Callable[[], T | None], timeout: float = 180.0) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def funded() -> Keypair:
    """A fresh wallet funded by the devnet's friendbot (the devnet's manifest names it)."""
    manifest = httpx.get(f"{DEVNET}/devnet/contracts", timeout=30).json()
    keypair = Keypair.random()
    assert httpx.get(manifest["friendbotUrl"], params={"addr": keypair.public_key}, timeout=60).status_code == 200
    return keypair


@pytest.fixture(scope="module")
def agent(funded: Keypair):
    with AgentClient(API) as client:
        client.register(funded, "pytest agent")
        yield client


def test_signs_in_with_sep53(agent: AgentClient) -> None:
    assert agent.api_key and agent.api_key.startswith("svc_ak_")
    with AgentClient(API) as anonymous:
        with pytest.raises(AgentApiError) as refused:
            anonymous.holdings(NET)
    assert (refused.value.code, refused.value.status) == ("MISSING_API_KEY", 401)


def test_buys_reads_holdings_and_follows_the_feed(agent: AgentClient, funded: Keypair) -> None:
    listing = eventually("a seeded listing", lambda: next(iter(agent.listings(NET).data), None))
    prepared = agent.prepare("buy", listing_id=listing.sale_address, amount=1, network_id=NET)
    assert prepared.details["shares"] == 1
    signed = agent.sign(prepared, funded)
    result = agent.submit("buy", signed, NET)
    assert result["transaction_hash"] == prepared.hash
    assert result["shares_bought"] == 1
    # The answer was lost? Send it again: the first result, not a second trade.
    assert agent.submit("buy", signed, NET) == result

    holding = eventually(
        "the bought share in the holdings",
        lambda: next((h for h in agent.holdings(NET).data if h.pool_address == listing.pool_address and h.shares >= 1), None),
    )
    assert holding.network_id == NET

    def sale_on_page():
        page = agent.events(types=["marketplace_sale_completed"], mine=True, limit=500)
        return next((e for e in page.data.events if e.data.get("transaction_hash") == prepared.hash), None)

    sale = eventually("the sale on the feed", sale_on_page)
    assert sale.data["buyer_address"] == funded.public_key
    # The same event on the live stream, read from the beginning (it is already in the feed, so this ends).
    for event in agent.stream_events("-1:-1", types=["marketplace_sale_completed"], mine=True):
        if event.id == sale.id:
            assert event.data["transaction_hash"] == prepared.hash
            break


def test_bad_feed_input_is_a_4xx_in_the_envelope(agent: AgentClient) -> None:
    for kwargs, code in (({"types": ["no_such_event"]}, "VALIDATION_ERROR"), ({"after": "not-a-cursor"}, "VALIDATION_ERROR")):
        with pytest.raises(AgentApiError) as refused:
            agent.events(**kwargs)
        assert (refused.value.code, refused.value.status) == (code, 400)
