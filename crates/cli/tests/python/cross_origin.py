"""Attacks a running `riverse serve` from web pages of other origins, in
headless Chromium, the way any page the user visits could.

Usage: cross_origin.py SERVER_URL OUT_DIR. Serves an attacking page on a
loopback port of its own, opens it (as a cross-site page on 127.0.0.1 and as
a same-site page on localhost), lets it try every request a page can send
without asking first, then opens the server under a rebound DNS name. Prints
one JSON document of what each attempt saw; the caller checks the server's
side (no tool ran).
"""

import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
from urllib.parse import urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

server_url, out_dir = sys.argv[1:3]
os.makedirs(out_dir, exist_ok=True)
server_port = urlparse(server_url).port

ATTACK = r"""<!doctype html><meta charset="utf-8"><title>attacker</title>
<iframe name="sink" style="display:none"></iframe>
<iframe id="framed" src="SERVER/"></iframe>
<script>
const server = "SERVER";
const results = {};
async function attempt(name, run) {
  try { results[name] = await run(); } catch (err) { results[name] = "error: " + err.name; }
}
function form(name, action, enctype, fields) {
  const f = document.createElement("form");
  f.method = "POST"; f.action = server + action; f.enctype = enctype; f.target = "sink";
  for (const [key, value] of Object.entries(fields)) {
    const input = document.createElement("input");
    input.name = key; input.value = value; f.append(input);
  }
  document.body.append(f); f.submit();
  results[name] = "submitted";
}
(async () => {
  const call = JSON.stringify({name: "nocors_text"});
  await attempt("nocors_text_plain", () => fetch(server + "/v1/tools/mark/call",
    {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: call}).then(r => r.type));
  await attempt("nocors_form_urlencoded", () => fetch(server + "/v1/tools/mark/call",
    {method: "POST", mode: "no-cors", headers: {"Content-Type": "application/x-www-form-urlencoded"},
     body: JSON.stringify({name: "nocors_form"})}).then(r => r.type));
  await attempt("nocors_blob", () => fetch(server + "/v1/tools/mark/call",
    {method: "POST", mode: "no-cors", body: new Blob([JSON.stringify({name: "nocors_blob"})])}).then(r => r.type));
  await attempt("nocors_chat", () => fetch(server + "/v1/chat/completions",
    {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
     body: JSON.stringify({messages: [{role: "user", content: "mark chat"}]})}).then(r => r.type));
  await attempt("nocors_new_conversation", () => fetch(server + "/v1/conversations",
    {method: "POST", mode: "no-cors"}).then(r => r.type));
  await attempt("cors_json", () => fetch(server + "/v1/tools/mark/call",
    {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: "cors_json"})}).then(r => r.status));
  await attempt("read_conversations", () => fetch(server + "/v1/conversations").then(r => r.text()));
  await attempt("read_tools", () => fetch(server + "/v1/tools").then(r => r.text()));
  await attempt("beacon", () => navigator.sendBeacon(server + "/v1/tools/mark/call",
    new Blob([JSON.stringify({name: "beacon"})], {type: "text/plain"})));
  form("form_text_plain", "/v1/tools/mark/call", "text/plain", {'{"name": "form_text", "x": "': '"}'});
  form("form_urlencoded", "/v1/tools/mark/call", "application/x-www-form-urlencoded", {name: "form_url"});
  form("form_multipart", "/v1/tools/mark/call", "multipart/form-data", {name: "form_multi"});
  await new Promise(r => setTimeout(r, 1500));
  let framed;
  try { framed = document.getElementById("framed").contentDocument ? "readable" : "not readable"; }
  catch (err) { framed = "error: " + err.name; }
  results.framed = framed;
  window.attackResults = results;
})();
</script>"""


class Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        host = self.headers.get("Host", "").split(":")[0]
        body = ATTACK.replace("SERVER", f"http://127.0.0.1:{server_port}").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
threading.Thread(target=pages.serve_forever, daemon=True).start()
pages_port = pages.server_address[1]

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
profile = tempfile.mkdtemp(prefix="riverse-chromium-")
for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", f"--user-data-dir={profile}",
             # A rebinding attacker's name, already pointing at loopback.
             "--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
seen = {}
try:
    wait = WebDriverWait(driver, 30)
    for name, origin in [("cross_site", f"http://127.0.0.1:{pages_port}"),
                         ("same_site", f"http://localhost:{pages_port}")]:
        driver.get(origin + "/attack.html")
        seen[name] = wait.until(lambda d: d.execute_script("return window.attackResults"))
        driver.save_screenshot(os.path.join(out_dir, f"attack-{name}.png"))
    # A link whose fragment is a path, not a conversation id: the page's next
    # message must still go to a conversation of its own.
    driver.get(server_url + "/#../tools/mark/call?")
    box = wait.until(lambda d: d.find_element(By.ID, "input"))
    box.send_keys("hello from the page")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: "Hi from the page." in d.execute_script(
        "return [...document.querySelectorAll('.message.assistant .text')].map(e => e.textContent).join(' ')"))
    seen["hash_link_answer"] = "Hi from the page."
    seen["hash_link_location"] = driver.execute_script("return location.hash")
    rebound = f"http://rebind.attacker.test:{server_port}"
    for path in ["/", "/v1/tools", "/v1/conversations"]:
        driver.get(rebound + path)
        seen["rebound " + path] = driver.execute_script("return document.body ? document.body.innerText : ''")
    driver.save_screenshot(os.path.join(out_dir, "rebound.png"))
finally:
    driver.quit()
    pages.shutdown()
    shutil.rmtree(profile, ignore_errors=True)
print(json.dumps(seen))
