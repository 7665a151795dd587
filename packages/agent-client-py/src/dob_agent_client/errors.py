"""The Agent API's refusals as one exception type carrying the envelope's code (docs/agent-api.md#conventions)."""

from __future__ import annotations

from typing import Any

import httpx


class AgentApiError(Exception):
    """A non-2xx answer: `code` (e.g. CONFLICT), HTTP `status`, `details`, and Retry-After seconds when sent."""

    def __init__(self, code: str, message: str, status: int, details: dict[str, Any] | None = None, retry_after: int | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.details = details or {}
        self.retry_after = retry_after

    @classmethod
    def from_response(cls, response: httpx.Response) -> "AgentApiError":
        header = response.headers.get("retry-after")
        retry_after = int(header) if header and header.strip().isdigit() else None
        try:
            error = response.json().get("error") or {}
        except ValueError:
            error = {}
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            return cls(error["code"], str(error.get("message", error["code"])), response.status_code, error.get("details"), retry_after)
        code = "INTERNAL_ERROR" if response.status_code >= 500 else "UNEXPECTED_RESPONSE"
        return cls(code, f"HTTP {response.status_code} without the API's error envelope", response.status_code, None, retry_after)
