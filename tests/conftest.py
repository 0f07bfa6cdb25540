"""Shared test helpers live beside this file (fake_http.py); pytest puts this folder on sys.path for them."""
