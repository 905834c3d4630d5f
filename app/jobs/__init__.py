"""The job domain: its typed result document, its specification checks and the service that
creates, queues and reads jobs (routes stay thin over it)."""
