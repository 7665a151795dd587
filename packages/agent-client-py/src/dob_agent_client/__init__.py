"""DobProtocol Agent API client: `AgentClient`, typed models generated from the OpenAPI document (`models`)."""

from . import models
from .client import TRADE_ROUTES, AgentClient, FeedEvent, PreparedTrade
from .errors import AgentApiError

__all__ = ["AgentClient", "AgentApiError", "FeedEvent", "PreparedTrade", "TRADE_ROUTES", "models"]
