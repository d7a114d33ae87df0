# shellcheck shell=bash
# scripts/lib/chromium.sh — the headless browser of the inspector's browser tests.
#
# Source it, then:
#   chromium_install   install Debian's chromium package when no chromium is on
#                      PATH (or AGENTMEM_CHROMIUM names none), and export
#                      AGENTMEM_CHROMIUM with the binary's path
#
# The tests (cmd/agentmem/internal/inspector, TestBrowser) start it themselves
# with --headless, a fresh profile and background networking off; they only
# browse a loopback test server.

# chromium_path prints the path of an installed chromium.
chromium_path() {
	if [ -n "${AGENTMEM_CHROMIUM:-}" ] && [ -x "$AGENTMEM_CHROMIUM" ]; then
		printf '%s\n' "$AGENTMEM_CHROMIUM"
		return 0
	fi
	command -v chromium || command -v chromium-browser
}

# chromium_install installs chromium from Debian's packages if it is missing.
chromium_install() {
	local p
	if ! p=$(chromium_path); then
		echo "chromium.sh: installing chromium" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null || return 1
		apt-get install -y -qq chromium >/dev/null || return 1
		p=$(chromium_path) || return 1
	fi
	export AGENTMEM_CHROMIUM="$p"
}
