"""API keys managed by an operator: create (shown once), list, revoke; with scopes and an expiry."""
