"""The cluster tests' fixtures: the S3-compatible server (``s3_server``) and the Ray head node (``head_node``)
live in tests/conftest.py, shared with the service's tests."""
