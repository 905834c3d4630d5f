"""Tenants as an operator sees them: erasing one and everything it stored."""
