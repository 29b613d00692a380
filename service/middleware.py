"""The app's own ASGI middleware: the request body's limit, and the security headers on every response."""

from __future__ import annotations

import json

from service.deps import MAX_BODY, TooLarge
from service.specs import MAX_UPLOAD

SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store"))


MAX_JSON = 32 * 2**20                # bytes of any JSON answer, at most (the console's own cap is lower)


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is refused with 413 in one line, read or not (an
    endpoint reading it meets TooLarge); every response gets the security headers; a JSON answer over MAX_JSON bytes
    is replaced by one line (500), and one whose length is not said is ended at MAX_JSON bytes."""

    def __init__(self, app, limit: int = MAX_BODY):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await _too_large(send)
        seen, started, json_left = 0, False, None

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise TooLarge()
            return message

        async def watched(message):
            nonlocal started, json_left
            if message["type"] == "http.response.start":
                started = True
                headers = dict((k.lower(), v) for k, v in message.get("headers", []))
                if headers.get(b"content-type", b"").startswith(b"application/json"):
                    size = headers.get(b"content-length", b"")
                    if size.isdigit() and int(size) > MAX_JSON:
                        json_left = -1             # the whole answer is replaced by one line
                        return await _too_large_answer(send)
                    json_left = MAX_JSON
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k, v) for k, v in SECURITY_HEADERS if k not in headers)]}
            elif message["type"] == "http.response.body" and json_left is not None:
                if json_left < 0:
                    return None
                body = message.get("body", b"")
                if len(body) > json_left:          # a streamed answer without its length: ended at the cap
                    message = {**message, "body": body[:json_left], "more_body": False}
                    json_left = -1
                else:
                    json_left -= len(body)
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


async def _too_large_answer(send) -> None:
    body = json.dumps({"error": f"the answer is larger than {MAX_JSON:,} bytes (the service's cap on an answer)"})
    await send({"type": "http.response.start", "status": 500,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body.encode()})
