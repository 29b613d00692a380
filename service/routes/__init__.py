"""The service's routers, one per area; service/app.py includes them all."""
