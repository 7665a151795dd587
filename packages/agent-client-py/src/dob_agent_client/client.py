"""A Python client of the DobProtocol Agent API.

The agent's key never leaves the agent: challenges are signed with SEP-53 (`Keypair.sign_message`) and prepared
envelopes with the Python Stellar SDK locally; the API only ever sees signatures. Response bodies are validated
with the pydantic models generated from the API's OpenAPI document (`models.py`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import httpx
from httpx_sse import connect_sse
from stellar_sdk import Keypair, TransactionBuilder

from . import models
from .errors import AgentApiError

TRADE_ROUTES: dict[str, tuple[str, str]] = {
    "buy": ("/api/agent/marketplace/prepare-buy", "/api/agent/marketplace/submit-buy"),
    "list": ("/api/agent/marketplace/prepare-list", "/api/agent/marketplace/submit-list"),
    "cancel": ("/api/agent/marketplace/prepare-cancel", "/api/agent/marketplace/submit-cancel"),
    "contribute": ("/api/agent/crowdfunding/prepare-contribute", "/api/agent/crowdfunding/submit-contribute"),
    "reclaim": ("/api/agent/crowdfunding/prepare-reclaim", "/api/agent/crowdfunding/submit-reclaim"),
}


@dataclass(frozen=True)
class PreparedTrade:
    kind: str
    network_id: int
    xdr: str
    network_passphrase: str
    details: dict[str, Any]
    expires_at: str
    #: Hex hash of the transaction: the API accepts back only what it prepared, by this hash.
    hash: str


@dataclass(frozen=True)
class FeedEvent:
    #: The cursor: pass it as `after` (or let `stream_events` send it as Last-Event-ID) to continue after this event.
    id: str
    event: str
    timestamp: str
    data: dict[str, Any]


class AgentClient:
    """`AgentClient("http://localhost:3000")`; `register(keypair)` sets the API key it then sends on every call."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 4,
        backoff: float = 1.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        base = base_url.rstrip("/")
        self.base_url = base[: -len("/api/agent")] if base.endswith("/api/agent") else base
        self.api_key = api_key
        self.retries = retries
        self.backoff = backoff
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "AgentClient":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ---- HTTP ----

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {**({"x-api-key": self.api_key} if self.api_key else {}), **(extra or {})}

    def request(self, method: str, path: str, *, params: dict[str, Any] | None = None, json: Any = None) -> dict[str, Any]:
        """One call; 429 and 503 are retried after their Retry-After (both are refused before anything happens)."""
        for attempt in range(self.retries + 1):
            response = self._http.request(method, path, params=params, json=json, headers=self._headers())
            if response.is_success:
                return response.json()
            error = AgentApiError.from_response(response)
            if response.status_code not in (429, 503) or attempt == self.retries:
                raise error
            time.sleep(error.retry_after if error.retry_after is not None else self.backoff * 2**attempt)
        raise AssertionError("unreachable")

    # ---- sign-in (SEP-53) ----

    def register(self, keypair: Keypair, label: str = "python agent", scopes: Sequence[str] = ("read", "trade")) -> str:
        """Challenge → SEP-53 signature made here → API key (kept on this client and returned)."""
        challenge = models.ApiAgentAuthChallengeWalletGetResponse.model_validate(
            self.request("GET", f"/api/agent/auth/challenge/{keypair.public_key}")
        )
        signature = keypair.sign_message(challenge.data.message).hex()
        body = {"wallet": keypair.public_key, "signature": signature, "label": label, "scopes": list(scopes)}
        registered = models.ApiAgentAuthRegisterPostResponse.model_validate(self.request("POST", "/api/agent/auth/register", json=body))
        self.api_key = registered.data.api_key.key
        return self.api_key

    # ---- reads ----

    def listings(self, network_id: int, *, sort: str = "price_asc", limit: int = 20) -> models.ApiAgentMarketplaceListingsGetResponse:
        params = {"network_id": network_id, "sort": sort, "limit": limit}
        return models.ApiAgentMarketplaceListingsGetResponse.model_validate(self.request("GET", "/api/agent/marketplace/listings", params=params))

    def holdings(self, network_id: int) -> models.ApiAgentPortfolioHoldingsGetResponse:
        body = self.request("GET", "/api/agent/portfolio/holdings", params={"network_id": network_id})
        return models.ApiAgentPortfolioHoldingsGetResponse.model_validate(body)

    # ---- prepare → sign locally → submit ----

    def prepare(self, kind: str, **body: Any) -> PreparedTrade:
        data = self.request("POST", TRADE_ROUTES[kind][0], json=body)["data"]
        tx = TransactionBuilder.from_xdr(data["xdr"], data["network_passphrase"])
        return PreparedTrade(
            kind=kind,
            network_id=int(body["network_id"]),
            xdr=data["xdr"],
            network_passphrase=data["network_passphrase"],
            details=data["transaction_details"],
            expires_at=data["expires_at"],
            hash=tx.hash_hex(),
        )

    @staticmethod
    def sign(prepared: PreparedTrade, keypair: Keypair) -> str:
        """Signs the prepared envelope locally; refuses one built for another account (wrong key or signer)."""
        envelope = TransactionBuilder.from_xdr(prepared.xdr, prepared.network_passphrase)
        source = envelope.transaction.source.account_id
        if source != keypair.public_key:
            raise ValueError(f"prepared for {source}, but the signer is {keypair.public_key}")
        envelope.sign(keypair)
        return envelope.to_xdr()

    def submit(self, kind: str, signed_xdr: str, network_id: int) -> dict[str, Any]:
        """Submits; a lost answer (network error, timeout) or a first submit still in flight is retried. Safe because
        submits are idempotent: the same signed envelope again answers the first outcome (Idempotent-Replayed)."""
        body = {"signed_xdr": signed_xdr, "network_id": network_id}
        for attempt in range(self.retries + 1):
            try:
                return self.request("POST", TRADE_ROUTES[kind][1], json=body)["data"]
            except AgentApiError as e:
                if e.code != "CONFLICT" or e.details.get("state") != "submitting" or attempt == self.retries:
                    raise
                time.sleep(e.retry_after or 1)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable")

    def buy(self, keypair: Keypair, listing_id: str, amount: int, network_id: int) -> dict[str, Any]:
        prepared = self.prepare("buy", listing_id=listing_id, amount=amount, network_id=network_id)
        return self.submit("buy", self.sign(prepared, keypair), network_id)

    # ---- the event feed ----

    @staticmethod
    def _filter(types: Sequence[str] | None, pools: Sequence[str] | None, mine: bool) -> dict[str, str]:
        return {
            **({"types": ",".join(types)} if types else {}),
            **({"pools": ",".join(pools)} if pools else {}),
            **({"mine": "true"} if mine else {}),
        }

    def events(
        self, after: str | None = None, *, types: Sequence[str] | None = None, pools: Sequence[str] | None = None, mine: bool = False, limit: int = 100
    ) -> models.ApiAgentEventsGetResponse:
        """One page of the feed after a cursor (oldest first); `data.next_cursor` continues it."""
        params: dict[str, Any] = {**self._filter(types, pools, mine), "limit": limit, **({"after": after} if after else {})}
        return models.ApiAgentEventsGetResponse.model_validate(self.request("GET", "/api/agent/events", params=params))

    def stream_events(
        self,
        after: str | None = None,
        *,
        types: Sequence[str] | None = None,
        pools: Sequence[str] | None = None,
        mine: bool = False,
        reconnect_delay: float = 1.0,
    ) -> Iterator[FeedEvent]:
        """The live feed (Server-Sent Events). Reconnects by itself after a network failure, a server restart or a
        SLOW_CONSUMER cut, sending the last id it yielded as Last-Event-ID: nothing is missed or repeated.
        Refusals (unknown type, expired cursor) raise AgentApiError."""
        cursor = after
        params = self._filter(types, pools, mine)
        while True:
            headers = self._headers({"accept": "text/event-stream", **({"last-event-id": cursor} if cursor else {})})
            try:
                # No read timeout: heartbeats arrive every 15 s, and a dead connection ends in a transport error.
                with connect_sse(self._http, "GET", "/api/agent/events/stream", params=params, headers=headers, timeout=httpx.Timeout(10.0, read=60.0)) as source:
                    if not source.response.is_success:
                        source.response.read()
                        error = AgentApiError.from_response(source.response)
                        if source.response.status_code not in (429, 503):
                            raise error
                        time.sleep(error.retry_after or reconnect_delay)
                        continue
                    for sse in source.iter_sse():
                        if sse.event == "error":
                            break  # cut with a reason (e.g. SLOW_CONSUMER): reconnect with the cursor
                        if not sse.data:
                            continue  # a `retry:` field alone; comments (heartbeats) are not yielded at all
                        e = FeedEvent(**sse.json())
                        cursor = e.id
                        yield e
            except httpx.TransportError:
                pass
            time.sleep(reconnect_delay)
