#!/usr/bin/env python3
"""Build examples/docs/企业职工带薪年休假实施办法.docx from the statute's Markdown text.

The statute text is public (PRC Copyright Law art. 5). The docx exercises Word ingest:
a Title, Heading styles, numbered articles and one table. The table restates article 3
of 职工带薪年休假条例 (years worked -> days of leave) and says so in its caption.

usage: scripts/make_example_docx.py SOURCE.md OUT.docx
"""
import re
import sys

import docx


def main(src: str, out: str) -> None:
    text = open(src, encoding="utf-8").read()
    head, body = text.split("<!-- INFO END -->", 1)
    title = re.search(r"^# (.+)$", head, re.M).group(1).strip()
    d = docx.Document()
    d.core_properties.title = title
    d.add_heading(title, level=0)
    for line in body.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("## "):
            d.add_heading(line[3:], level=1)
        else:
            d.add_paragraph(line)
    d.add_heading("附表", level=1)
    d.add_paragraph("年休假天数表（依据《职工带薪年休假条例》第三条）")
    rows = [("累计工作年限", "年休假天数"), ("已满1年不满10年", "5天"), ("已满10年不满20年", "10天"), ("已满20年", "15天")]
    table = d.add_table(rows=len(rows), cols=2)
    for i, (a, b) in enumerate(rows):
        table.cell(i, 0).text = a
        table.cell(i, 1).text = b
    d.save(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
