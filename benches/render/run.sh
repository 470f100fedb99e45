#!/usr/bin/env bash
# Styled rendering and print formats against the peers, in one run: qr-core's criterion
# benchmark (benches/styles.rs), then segno (PyPI) for PDF, EPS, SVG and PNG, and
# qr-code-styling (npm, run headless with jsdom and @napi-rs/canvas) for styled SVG and PNG, all
# on the reference URL at 300 px (50 mm for print), and the bytes libqrencode's qrencode writes
# (EPS, SVG, PNG; it has no PDF; Debian's `qrencode`, skipped when missing). Installs the peers
# in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== qr-core (criterion medians)"
cargo bench -p qr-benches --bench styles 2>&1 | grep -E "^(png|svg|pdf|eps)/|time:|bytes|^plain|^rounded|^dots|^connected"

echo "== libqrencode (bytes; 8 px a module, 4 modules of quiet zone: 296 px)"
if command -v qrencode >/dev/null; then
    for kind in EPS SVG PNG; do
        qrencode -l M -m 4 -s 8 -t "$kind" -o "$work/qrencode.$kind" "https://qr.example.com/r/7K3M9QXZ"
        echo "qrencode $kind: $(wc -c <"$work/qrencode.$kind") bytes"
    done
    qrencode -l M -m 4 -s 8 -t SVG --svg-path -o "$work/qrencode-path.svg" "https://qr.example.com/r/7K3M9QXZ"
    echo "qrencode SVG --svg-path: $(wc -c <"$work/qrencode-path.svg") bytes"
else
    echo "qrencode not installed (apt-get install qrencode): skipped"
fi

echo "== segno"
python3 -m pip install --quiet --target "$work/py" segno
PYTHONPATH="$work/py" python3 - <<'PY'
import io, timeit, segno
url = "https://qr.example.com/r/7K3M9QXZ"
def make():
    return segno.make(url, error="m")
for kind, kw in [("png", {"scale": 8, "border": 4}), ("svg", {"scale": 8}), ("pdf", {}), ("eps", {})]:
    def run():
        out = io.StringIO() if kind == "eps" else io.BytesIO()
        make().save(out, kind=kind, **kw)
        return out.getvalue()
    n = 200
    t = min(timeit.repeat(run, number=n, repeat=5)) / n
    print(f"segno {kind}: {t * 1e6:.1f} us, {len(run())} bytes")
PY

echo "== qr-code-styling"
(cd "$work" && npm init -y >/dev/null && npm install --silent qr-code-styling jsdom @napi-rs/canvas >/dev/null)
NODE_PATH="$work/node_modules" node - <<'JS'
const { JSDOM } = require("jsdom");
const QRCodeStyling = require("qr-code-styling");
const canvas = require("@napi-rs/canvas");
const url = "https://qr.example.com/r/7K3M9QXZ";
async function time(type, extension, dots) {
  const options = { jsdom: JSDOM, nodeCanvas: canvas, type, width: 300, height: 300, data: url, margin: 32,
    qrOptions: { errorCorrectionLevel: "M" }, dotsOptions: { type: dots, color: "#000" },
    backgroundOptions: { color: "#fff" } };
  let bytes = 0;
  for (let i = 0; i < 20; i++) bytes = (await new QRCodeStyling(options).getRawData(extension)).length;
  const n = 100, start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await new QRCodeStyling(options).getRawData(extension);
  const us = Number(process.hrtime.bigint() - start) / n / 1000;
  console.log(`qr-code-styling ${extension} ${dots}: ${us.toFixed(1)} us, ${bytes} bytes`);
}
(async () => {
  for (const dots of ["square", "rounded", "dots"]) {
    await time("svg", "svg", dots);
    await time("canvas", "png", dots);
  }
})();
JS
