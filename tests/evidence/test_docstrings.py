"""A docstring read as prose (evidence/docstrings.py): markup, wrapping, the field-list style
and a directive's release spelling are not its words; every word is."""

from __future__ import annotations

from openwiki_git.evidence.docstrings import docstring_prose, summary_prose

SPHINX = '''"""
    Wrap ``logger``.

    :param logger: The logger.
    :param initial_values: Values that are used to pre-populate
        your contexts.
    :returns: A proxy.
    :raises TypeError: If it is not one.

    .. versionadded: 18.1
    """'''
GOOGLE = '''"""
    Wrap `logger`.

    Arguments:

        logger: The logger.

        initial_values:
            Values that are used to pre-populate your contexts.

    Returns:

        A proxy.

    Raises:
        TypeError: If it is not one.

    .. versionadded: 18.1.0
    """'''


def test_the_field_list_style_and_the_release_spelling_are_not_words() -> None:
    assert docstring_prose(SPHINX) == docstring_prose(GOOGLE)
    assert docstring_prose(SPHINX).startswith("Wrap logger. param logger: The logger.")


def test_every_word_is_compared() -> None:
    for old, new in (("The logger.", "A logger."), ("initial_values:", "new_values:"), ("18.1.0", "18.2.0"), ("TypeError:", "ValueError:")):
        assert old in GOOGLE
        assert docstring_prose(GOOGLE.replace(old, new)) != docstring_prose(SPHINX), (old, new)


def test_a_line_ending_in_a_colon_inside_an_entry_is_not_an_entry() -> None:
    inside = GOOGLE.replace("your contexts.", "your contexts, with\n            differences:\n            none.")
    assert "param differences:" not in docstring_prose(inside)


def test_a_heads_summary_keeps_its_reading() -> None:
    assert summary_prose('"""Add ``item`` to\n    the :func:`cart`."""') == "Add item to the cart."
