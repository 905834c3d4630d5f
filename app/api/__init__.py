"""The HTTP API: routes, dependencies, schemas and the one error handler."""
