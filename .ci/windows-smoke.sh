#!/usr/bin/env bash
# The Windows build, run under Wine: it starts with a Rocket.toml written with Windows line
# endings, answers /api/health, signs up, records a movement, stops on Ctrl+C (SIGINT,
# which Wine delivers as a console Ctrl+C event) with exit 0, and `stockbook.exe check`
# passes on the file it leaves. Usage: .ci/windows-smoke.sh path/to/stockbook.exe
set -euo pipefail
exe="$(realpath "$1")"
here="$(dirname "$(realpath "$0")")"
work="$(mktemp -d)"
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
cd "$work"
port=$((20000 + RANDOM % 20000))
# A Rocket.toml as Notepad would save it (CRLF), and a database path in Windows form.
printf '[default]\r\nport = %s\r\ndatabase = "C:\\\\stockbook-smoke\\\\shop.db"\r\nsignup = "open"\r\n' "$port" > Rocket.toml
mkdir -p "$WINEPREFIX"
wineboot --init >/dev/null 2>&1 || true
mkdir -p "$WINEPREFIX/drive_c/stockbook-smoke"
# Debian 12's Wine 8 lacks bcryptprimitives.dll (Rust's std needs its ProcessPrng; Windows
# 10 and later have it): a stand-in for this run only (.ci/wine/bcryptprimitives.c).
x86_64-w64-mingw32-gcc -O2 -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
    "$here/wine/bcryptprimitives.c" -ladvapi32

wine "$exe" --version
wine "$exe" serve > server.log 2>&1 &
server=$!
trap 'kill -9 $server 2>/dev/null || true; wineserver -k 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && break
    sleep 1
done
curl -fsS "http://127.0.0.1:$port/api/health"; echo
jar="$work/cookies"
post() { curl -fsS -b "$jar" -c "$jar" -H 'Content-Type: application/json' -d "$2" "http://127.0.0.1:$port$1"; }
post /api/auth/signup '{"email":"owner@example.com","password":"a good password"}' >/dev/null
entity=$(post /api/entities '{"name":"Windows Ltd"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
loc=$(post /api/warehouse-locations "{\"name\":\"Shop\",\"entity_id\":\"$entity\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
product=$(post /api/products "{\"name\":\"Mug\",\"entity_id\":\"$entity\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["id"])')
post /api/stock-movements "{\"product_id\":\"$product\",\"location_id\":\"$loc\",\"qty\":3,\"type\":\"purchase\"}" >/dev/null
stock=$(curl -fsS -b "$jar" "http://127.0.0.1:$port/api/products?entityId=$entity" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["stock_qty"])')
[ "$stock" = "3" ] || { echo "windows smoke: stock_qty is $stock, not 3" >&2; exit 1; }

kill -INT "$server"
status=0
for _ in $(seq 1 30); do
    kill -0 "$server" 2>/dev/null || break
    sleep 1
done
if kill -0 "$server" 2>/dev/null; then
    echo "windows smoke: the server did not stop on Ctrl+C" >&2; cat server.log >&2; exit 1
fi
wait "$server" || status=$?
cat server.log
[ "$status" = 0 ] || { echo "windows smoke: exit status $status after Ctrl+C" >&2; exit 1; }
wine "$exe" check
echo "windows smoke: ok"
