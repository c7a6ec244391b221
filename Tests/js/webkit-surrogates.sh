#!/usr/bin/env bash
# surrogates.js in real WebKit: runs Tests/js/webkit_surrogates.py with the harness of scripts/webkit,
# in the same environment as scripts/webkit-check (system python3 with gi, xvfb-run, no sandbox as root).
# usage: Tests/js/webkit-surrogates.sh reference RULES.json BUNDLE.js TESTS.json
#        Tests/js/webkit-surrogates.sh hostile BUNDLE.js
#        Tests/js/webkit-surrogates.sh load BUNDLE.js [RULES.json]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS=1 WEBKIT_DISABLE_COMPOSITING_MODE=1 LIBGL_ALWAYS_SOFTWARE=1
export PYTHONPATH="$here/../../scripts${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
exec xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp" /usr/bin/python3 "$here/webkit_surrogates.py" "$@"
