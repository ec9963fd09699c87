"""Helpers shared by the tests of several packages, in one place: the git repository driver
(`repo.py`), the OpenWiki fixture wiki (`openwiki_fixture.py`), sample documents and state
snapshots (`samples.py`), the scripted model (`scripted_refresher.py`) and the OpenAI-compatible
server on 127.0.0.1 (`fake_openai_server.py`). Fixtures live in `tests/conftest.py`."""
