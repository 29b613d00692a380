"""The app's own ASGI middleware: the request body's limit, and the security headers on every response."""

from __future__ import annotations

from service.deps import MAX_BODY, TooLarge
from service.specs import MAX_UPLOAD

SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store"))


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is refused with 413 in one line, read or not (an
    endpoint reading it meets TooLarge); every response gets the security headers."""

    def __init__(self, app, limit: int = MAX_BODY):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await _too_large(send)
        seen, started = 0, False

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise TooLarge()
            return message

        async def watched(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                have = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k, v) for k, v in SECURITY_HEADERS if k not in have)]}
            await send(message)
        try:
            await self.app(scope, counted, watched)
        except TooLarge:
            if not started:
                await _too_large(send)


async def _too_large(send) -> None:
    body = f"error: the request is larger than {MAX_BODY:,} bytes; a spec may be at most {MAX_UPLOAD:,}\n".encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})
