"""Focus terms: identifiers, quoted text and significant words of a focus instruction."""

from __future__ import annotations

import pytest

from sessionlens.engine.contract.focus_terms import focus_coverage, focus_terms, term_in


@pytest.mark.parametrize(("instructions", "terms"), [
    ("Focus on imap.zoho.com and the SMTP port", ("imap.zoho.com", "SMTP", "port")),
    ("Focus on #b5bd68", ("#b5bd68",)),
    ('Keep "retry budget" and src/orbit/budget_13.py', ("retry budget", "src/orbit/budget_13.py")),
    ("Please focus on the details", ()),
    ("Focus on Postgres, the DB_URL and port 5433.", ("postgres", "DB_URL", "port", "5433")),
])
def test_terms_are_identifiers_quotes_and_significant_words(instructions: str,
                                                            terms: tuple[str, ...]) -> None:
    assert focus_terms(instructions) == terms


def test_a_term_matches_at_a_word_start_case_insensitively() -> None:
    assert term_in("#b5bd68", "color: #B5BD68;")
    assert term_in("errors", "Error in the parser")
    assert term_in("SMTP", "smtp.zoho.com:465")
    assert not term_in("port", "we support it")
    assert term_in("MiniMax", "你可以接入minimax模型吗")


def test_coverage_requires_only_terms_the_span_mentions() -> None:
    cov = focus_coverage("Focus on imap.zoho.com and the SMTP port and kubernetes",
                         ["host imap.zoho.com", "SMTP on port 465"], "SMTP port 465")
    assert cov.in_span == ("imap.zoho.com", "SMTP", "port")
    assert cov.missing == ("imap.zoho.com",)
    assert cov.applied is False
    assert focus_coverage("Focus on kubernetes", ["nothing"], "x").applied is False
    assert focus_coverage("", ["x"], "x").applied is None
