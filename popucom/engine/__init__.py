"""The GTP-style text engine (docs/engine_protocol.md)."""
