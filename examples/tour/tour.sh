#!/usr/bin/env bash
# The five-minute tour of openwiki-git, step by step (the README's "The five-minute tour" shows
# this script's commands and their output; tests/e2e/test_tour.py runs it and compares the two).
#
#   examples/tour/tour.sh [DIR]    # DIR: an empty directory to work in (default: a new temp dir)
#
# Needs openwiki-git and pre-commit 4.4+ on PATH (`python -m pip install . 'pre-commit>=4.4'`), git and perl.
# Offline: the hook is this repository's hook definition as a `repo: local` hook, run with the
# openwiki-git you installed. Each step is one block between `# --- step` lines: read it, run
# its commands yourself in the directory it prints, or let the script run them all.
set -euo pipefail

for tool in openwiki-git pre-commit git perl; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        case "$tool" in
            openwiki-git) how="python -m pip install openwiki-git (or, in a clone, python -m pip install .)" ;;
            pre-commit) how="python -m pip install 'pre-commit>=4.4'" ;;
            *) how="install it with your system's package manager" ;;
        esac
        echo "tour: $tool is not on PATH: $how" >&2
        exit 2
    fi
done

HERE="$(cd "$(dirname "$0")" && pwd)"
TOUR="${1:-$(mktemp -d "${TMPDIR:-/tmp}/openwiki-git-tour.XXXXXX")}"
ID=""  # the tour's claim, as the page labels it (c-1a2b3c4d), once step 4 has made it

# `run 'COMMAND'`: print `$ COMMAND` (with $ID filled in), run it, print its output, and say when
# it exits with another code than 0 (the tour expects some: a stale claim is exit 1).
run() {
    local shown="${1//\$ID/$ID}" status=0
    printf '$ %s\n' "$shown"
    OUT="$(eval "$1" 2>&1)" || status=$?
    if [ -n "$OUT" ]; then printf '%s\n' "$OUT"; fi
    if [ "$status" -ne 0 ]; then echo "[exit $status]"; fi
}

# `step "N. TITLE"`: the start of a step (the README's tour has one block per step).
step() {
    printf '\n# --- %s\n' "$1"
}

# `show FILE`: write FILE from stdin and print it as the heredoc that writes it.
show() {
    local text
    text="$(cat)"
    printf "\$ cat > %s <<'EOF'\n%s\nEOF\n" "$1" "$text"
    printf '%s\n' "$text" >"$1"
}

# --- step: the project, in git, and its wiki ----------------------------------------------
step "the project, in git, and its wiki"
cp -R "$HERE/project/." "$TOUR"
cd "$TOUR"
echo "# in $TOUR"
run 'git init -q -b main'
git config user.name >/dev/null || git config user.name "Tour"
git config user.email >/dev/null || git config user.email "tour@example.com"
run 'git add -A && git commit -q -m "the project"'
run 'openwiki-git init'

# --- step: a page --------------------------------------------------------------------------
step "a page"
show .openwiki/retries.md <<'EOF'
---
type: Reference
---

# Retries

A call is tried at most five times.
EOF

# --- step: a claim: the sentence, grounded in the lines that make it true ------------------
step "a claim: the sentence, grounded in the lines that make it true"
run "openwiki-git claim add --page retries.md --statement 'A call is tried at most five times.' --evidence 'repo://retry.py#L3-L3'"
ID="c-$(printf '%s' "$OUT" | grep -o 'claim_[0-9a-f]\{8\}' | head -1 | cut -c7-)"
run 'openwiki-git check'

# --- step: the hook ------------------------------------------------------------------------
step "the hook"
show .pre-commit-config.yaml <<'EOF'
repos:
  - repo: local
    hooks:
      - id: openwiki-git
        name: openwiki-git (mark stale claims)
        entry: openwiki-git hook
        language: unsupported
        pass_filenames: false
        always_run: true
        require_serial: true
EOF
run 'pre-commit install'
run 'git add -A && git commit -q -m "a wiki page with a claim"'

# --- step: a change that only moves the cited line: the hook re-anchors, the commit passes --
step "a change that only moves the cited line: the hook re-anchors, the commit passes"
run "perl -0pi -e 's/^MAX_ATTEMPTS/import logging\\n\\nMAX_ATTEMPTS/m' retry.py"
run 'git commit -q -am "import logging"'
run 'git show --stat --format= HEAD'

# --- step: a change that matters: the hook stops the commit once ---------------------------
step "a change that matters: the hook stops the commit once"
run "perl -pi -e 's/MAX_ATTEMPTS = 5/MAX_ATTEMPTS = 3/' retry.py"
run 'git commit -q -am "three attempts are enough"'
run 'git commit -q -am "three attempts are enough"'
run 'openwiki-git check'

# --- step: the pull request's comment, rendered locally ------------------------------------
step "the pull request's comment, rendered locally"
run 'openwiki-git github comment --print --base HEAD~1'

# --- step: clear the mark: read what changed, fix the page, confirm -----------------------
# At a terminal, `openwiki-git review` does this one claim at a time (the diff, then c/e/r/x/s);
# it is interactive, so the script uses `claim show` and `claim confirm`, which scripts use.
step "clear the mark: read what changed, fix the page, confirm"
run 'openwiki-git claim show $ID'
run "perl -pi -e 's/at most five times/at most three times/' .openwiki/retries.md"
run "openwiki-git claim confirm \$ID --statement 'A call is tried at most three times.' --by human:you"
run 'openwiki-git check'
run 'git commit -q -am "the wiki says three"'

# --- step: the wiki's health: the report ------------------------------------------------
step "the wiki's health: the report"
run 'openwiki-git report'
run 'openwiki-git report --html report.html'

# --- the end ---------------------------------------------------------------------------------
step "the end"
echo "The wiki is true again, and the hook keeps it so. The project is in $TOUR."
