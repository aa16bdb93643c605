#!/usr/bin/env bash
# Install the system packages Tablelens uses, when they are missing and we may install them.
# tesseract-ocr reads screenshots of tables; chromium + chromium-driver drive the browser tests;
# fonts-dejavu-core is the font the OCR tests and bench render their table images in;
# postgresql gives the server binaries (initdb, pg_ctl) the storage tests start their own
# throwaway PostgreSQL server with (tests/postgres_server.py; the app itself only needs a
# server when TABLELENS_DATABASE_URL names one). The package may also set up and start its
# own cluster on port 5432; the tests do not use it.
set -u
need=()
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null || need+=(postgresql)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages: ${need[*]}" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null && exit 0
  echo "apt-get could not install: ${need[*]}" >&2
elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages with sudo: ${need[*]}" >&2
  sudo apt-get update -qq >/dev/null && sudo DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null && exit 0
fi
echo "Missing system packages: ${need[*]}. Install them with your package manager" \
     "(Debian/Ubuntu: apt-get install ${need[*]}); the tests that need them are skipped." >&2
exit 0
