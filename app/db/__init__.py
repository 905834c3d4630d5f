"""Persistence: ORM models, engine/session factory and the repository that holds every query."""
