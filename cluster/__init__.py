"""Parameter sweeps on Ray: specs (``spec``), one part per task (``part``), the manifest and the driver (``sweep``)."""
