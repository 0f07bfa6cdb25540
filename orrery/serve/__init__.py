"""The agent server: every installed app's agent over AG-UI (SSE), threads, uploads and the web app."""

from orrery.serve.app import Settings, create_app

__all__ = ["Settings", "create_app"]
