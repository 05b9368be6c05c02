"""Draws spans.json (one trace) as a waterfall page: trace.html."""
import html, json
spans = json.load(open("spans.json"))
start = min(s["start"] for s in spans); end = max(s["end"] for s in spans)
total = max(end - start, 1)
children = {}
for s in spans:
    children.setdefault(s["parent"], []).append(s)
ids = {s["id"] for s in spans}
roots = [s for s in spans if s["parent"] not in ids]
rows = []
def walk(span, depth):
    rows.append((span, depth))
    for child in sorted(children.get(span["id"], []), key=lambda s: s["start"]):
        walk(child, depth + 1)
for root in roots:
    walk(root, 0)
colour = {"invoke_agent": "#6b5bd2", "chat": "#2a9d8f", "execute_tool": "#e9a23b"}
out = ["<html><head><style>body{font:13px system-ui,sans-serif;margin:18px;color:#222}"
       ".row{display:flex;align-items:center;height:38px;border-bottom:1px solid #eee}"
       ".name{width:520px;white-space:nowrap;overflow:hidden}.lane{position:relative;flex:1;height:16px}"
       ".bar{position:absolute;height:16px;border-radius:3px;min-width:2px}"
       ".dur{width:80px;text-align:right;color:#555}.attrs{color:#666;font-size:11px;margin:2px 0 0 0}"
       "h3{margin:0 0 10px 0;font-weight:600}</style></head><body>"]
trace_ms = total / 1e6
out.append(f"<h3>One turn of <code>riverse ask</code> on the embedded default, as exported over OTLP ({trace_ms:.0f} ms, {len(spans)} spans)</h3>")
for span, depth in rows:
    left = (span["start"] - start) / total * 100
    width = (span["end"] - span["start"]) / total * 100
    op = span["attributes"].get("gen_ai.operation.name", "")
    shown = {k: v for k, v in span["attributes"].items()
             if k in ("gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.provider.name",
                      "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.conversation.id")}
    attrs = " · ".join(f"{html.escape(k)}={html.escape(str(v))}" for k, v in shown.items())
    out.append(f'<div class="row"><div class="name" style="padding-left:{depth*18}px">'
               f'{html.escape(span["name"])}<div class="attrs">{attrs}</div></div>'
               f'<div class="lane"><div class="bar" style="left:{left:.2f}%;width:{width:.2f}%;'
               f'background:{colour.get(op, "#888")}"></div></div>'
               f'<div class="dur">{(span["end"]-span["start"])/1e6:.1f} ms</div></div>')
out.append("</body></html>")
open("trace.html", "w").write("\n".join(out))
