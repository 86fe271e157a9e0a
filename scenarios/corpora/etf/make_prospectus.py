"""Writes files/adiv-prospectus.pdf: a three-page prospectus excerpt with a text layer (Helvetica, no
dependencies), so document_read reads it page by page. Run it again only if the text below changes."""
import os

PAGES = [
    [
        "ACME Global Dividend ETF (ADIV): Prospectus excerpt, 1 February 2026",
        "Synthetic teaching document: every company, figure and date here is fictional.",
        "",
        "Fees and expenses of the USD Distributing share class, per year:",
        "Management fee (1): 0.35%",
        "Other expenses, capped (2): 0.03%",
        "Total ongoing charge: 0.38%",
        "Fee changes are announced by the issuer at least 30 days before they take effect.",
        "",
        "(1) The management fee accrues daily and is paid monthly out of the fund's assets.",
        "(2) Any amount above the cap is borne by ACME Fund Management.",
    ],
    [
        "Principal risks",
        "",
        "Dividend concentration risk: the index favours companies with high dividend",
        "payments, which tends to concentrate the fund in financials, utilities, energy and",
        "telecommunications. A downturn affecting these sectors may cause the fund to fall",
        "more than broad equity markets.",
        "",
        "Currency risk: most holdings are priced in currencies other than the US dollar.",
        "Changes in exchange rates may reduce the value of the investment in US dollar terms.",
    ],
    [
        "Principal risks (continued)",
        "",
        "Securities lending risk: the fund may lend up to 30% of its assets. If a borrower",
        "defaults and the collateral is insufficient, the fund may suffer a loss. Revenue from",
        "lending is shared 70% to the fund and 30% to the lending agent (5).",
        "",
        "Index tracking risk: the fund uses optimised sampling and may not hold every index",
        "constituent, so its return may differ from the index return.",
        "",
        "(5) The lending agent is an affiliate of ACME Fund Management.",
    ],
]


def escape(line):
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def content(lines):
    ops = ["BT", "/F1 11 Tf", "14 TL", "56 780 Td"]
    for line in lines:
        ops.append(f"({escape(line)}) Tj T*")
    ops.append("ET")
    return "\n".join(ops).encode("latin-1")


def build():
    objects = {1: b"<< /Type /Catalog /Pages 2 0 R >>", 3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
    kids = []
    for i, lines in enumerate(PAGES):
        page, stream = 4 + 2 * i, 5 + 2 * i
        data = content(lines)
        objects[stream] = b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"
        objects[page] = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % stream
        kids.append(b"%d 0 R" % page)
    objects[2] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d >>" % len(PAGES)
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for n in sorted(objects):
        offsets[n] = len(out)
        out += b"%d 0 obj\n" % n + objects[n] + b"\nendobj\n"
    xref = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for n in range(1, size):
        out += b"%010d 00000 n \n" % offsets[n]
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "files", "adiv-prospectus.pdf"), "wb") as f:
        f.write(build())
