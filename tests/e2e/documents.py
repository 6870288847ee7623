"""Real, small KYC documents for tests: a valid one-page PDF and a valid PNG, built from scratch."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def make_pdf(path: Path, text: str = "Certificate of incorporation", *, pad_to: int = 0) -> Path:
    """A one-page PDF any viewer opens, with a correct xref table; ``pad_to`` grows it with a comment."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    if pad_to > len(out) + 200:
        # A PDF comment line: viewers skip it, and it makes a file of the size a test needs.
        filler = pad_to - len(out) - 200
        out += b"%" + b"0" * (filler - 2) + b"\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def make_png(path: Path, width: int = 16, height: int = 16) -> Path:
    """A valid RGB PNG (a simple gradient), with correct chunk CRCs."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 16 % 256, y * 16 % 256, 128)) for x in range(width))
        for y in range(height)
    )
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(rows))
    png += chunk(b"IEND", b"")
    path.write_bytes(png)
    return path


def make_kyc_set(folder: Path) -> dict[str, Path]:
    """The three documents the sandbox asks for: two PDFs and a PNG."""
    folder.mkdir(parents=True, exist_ok=True)
    return {
        "business_registration": make_pdf(folder / "incorporation.pdf"),
        "address_proof": make_pdf(folder / "electricity-bill.pdf", "Electricity bill, October"),
        "signatory_id": make_png(folder / "pan-card.png"),
    }
