"""Test fakes: in-memory and loopback stand-ins for providers and hosts."""
