"""Call a flaky function again until it works."""

MAX_ATTEMPTS = 5


def retry(call):
    """Return call()'s result; a ConnectionError is retried, the last one raised."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return call()
        except ConnectionError:
            if attempt == MAX_ATTEMPTS:
                raise
