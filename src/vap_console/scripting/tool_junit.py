"""`vap tools try --junit PATH`: one test case per tool, valid XML whatever the webhook answered.

A webhook's body may hold anything: escape sequences, NUL, U+FFFE, lone surrogates, ``]]>``.
Everything goes through ``literal.clean`` (control characters as visible stand-ins, as on a
terminal), then any character XML 1.0 cannot hold at all is written as a ``\\uXXXX`` escape;
ElementTree escapes the markup characters. The secret is masked before (TryResult's text is).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from vap_console.api.tool_result import TryResult
from vap_console.literal import xml_text


def junit(results: list[TryResult]) -> str:
    root = ET.Element("testsuites", name="vap tools try")
    failed = sum(not r.ok for r in results)
    suite = ET.SubElement(root, "testsuite", name="vap tools try", tests=str(len(results)),
                          failures=str(failed), errors="0")
    for result in results:
        answer = result.answer
        name = xml_text(result.tool.name, multiline=False)
        case = ET.SubElement(suite, "testcase", classname="vap tools try", name=name,
                             time=f"{(answer.ms if answer else 0) / 1000:.3f}")
        properties = ET.SubElement(case, "properties")
        request = result.request
        figures = (("method", request.method), ("url", request.url), ("timeoutMs", request.timeout_ms),
                   ("status", answer.status if answer else None), ("ms", round(answer.ms) if answer else None))
        for key, value in figures:
            ET.SubElement(properties, "property", name=key, value=xml_text(request.mask(str(value)), multiline=False))
        lines = [f"{'ok  ' if c.ok else 'FAIL'} {c.what}: {c.detail}" for c in result.checks]
        lines += [f"output {o.name} ({o.path}) = {o.value if o.found else 'missing'}" for o in result.outputs]
        body, _ = result.body_text()
        detail = request.mask("\n".join(lines))
        if not result.ok:
            ET.SubElement(case, "failure", message=xml_text(result.verdict(), multiline=False)).text = xml_text(detail)
        ET.SubElement(case, "system-out").text = xml_text(detail + ("\n\n" + body if body else ""))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
