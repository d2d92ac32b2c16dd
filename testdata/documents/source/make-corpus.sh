#!/usr/bin/env bash
# Regenerates the document corpus from its sources. Development time only:
# needs LibreOffice (libreoffice-writer-nogui), qpdf, img2pdf and ImageMagick,
# with fonts-dejavu-core, fonts-noto-core, fonts-noto-cjk and hyphen-en-us.
set -euo pipefail
cd "$(dirname "$0")"
out=..
python3 gen.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in report two-columns languages large; do
  soffice --headless -env:UserInstallation=file://$tmp/profile --convert-to pdf --outdir "$tmp" "$f.fodt" >/dev/null
  cp "$tmp/$f.pdf" "$out/$f.pdf"
done
for f in report languages; do
  soffice --headless -env:UserInstallation=file://$tmp/profile --convert-to docx:"MS Word 2007 XML" --outdir "$tmp" "$f.fodt" >/dev/null
  cp "$tmp/$f.docx" "$out/$f.docx"
done
# An encrypted copy (AES-256, user password "secret").
qpdf --encrypt secret owner 256 -- "$out/report.pdf" "$out/encrypted.pdf"
# A copy with only an owner password: readable without one, as viewers do.
qpdf --encrypt "" owner 256 -- "$out/report.pdf" "$out/owner-password.pdf"
# A scanned page: the text as an image, no text layer.
convert -size 1240x400 xc:white -font DejaVu-Serif -pointsize 28 -fill black \
  -annotate +60+80 "$(fold -s -w 70 scanned.txt)" -alpha off -depth 8 -type Grayscale "$tmp/scan.png"
img2pdf --pagesize A4 -o "$out/scanned.pdf" "$tmp/scan.png"
