"""Drives the chat page through a background task's follow-up, streamed.

Usage: page_follow_up_stream.py URL GATE; prints one JSON document of what
it saw. The page sends a message whose call becomes a task; while the task
runs, the page is hidden and shown again, as a browser does when its tab
is left and taken up again. The follow-up calls a tool that waits for the
file GATE. Once the follow-up's cards are shown, the page is loaded again
(a page opened while the follow-up runs), then this script writes GATE
and the follow-up's text streams. Every text node the page puts in the
follow-up's text is noted as it comes, so the output shows whether it grew
piece by piece. With RIVERSE_TEST_SCREENSHOT set, a screenshot of the end
is saved there.
"""

import json
import os
import sys

import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

url, gate = sys.argv[1], sys.argv[2]
driver, stop_chromium = chromium.start("--window-size=1100,900")
seen = {}
# Notes each text node put in an answer's text, in the answers after the first.
OBSERVE = """
window.firstAnswer = document.querySelector(".message.assistant");
window.textsShown = [];
new MutationObserver((records) => {
  for (const record of records) {
    const answer = record.target.closest && record.target.closest(".message.assistant");
    if (!answer || answer === window.firstAnswer || !record.target.classList.contains("text")) continue;
    for (const node of record.addedNodes) if (node.nodeType === Node.TEXT_NODE) window.textsShown.push(node.data);
  }
}).observe(document.getElementById("messages"), { childList: true, subtree: true });
"""
# Says the page is hidden (true) or shown (false), as a browser does.
SHOW = """
Object.defineProperty(document, "hidden", { configurable: true, get: () => %s });
document.dispatchEvent(new Event("visibilitychange"));
"""
try:
    wait = WebDriverWait(driver, 60)
    css = lambda selector: driver.find_elements(By.CSS_SELECTOR, selector)
    driver.get(url)
    box = wait.until(lambda d: d.find_element(By.ID, "input"))
    box.send_keys("Build the report")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: css(".card .task"))
    wait.until(lambda d: "Started the report." in css(".message.assistant .text")[-1].text)
    seen["cancel_buttons"] = len(css(".card .task button"))
    # Hidden, the page lets its stream go; shown again, it listens again
    # and reads the conversation again.
    listening = lambda d: d.execute_script("return events !== null")
    seen["listening"] = [listening(driver)]
    driver.execute_script(SHOW % "true")
    seen["listening"].append(listening(driver))
    driver.execute_script("window.before = document.querySelector('.message.assistant');" + SHOW % "false")
    wait.until(listening)
    seen["listening"].append(True)
    wait.until(lambda d: d.execute_script("return !window.before.isConnected"))
    follow_up_cards = lambda d: (len(css(".message.assistant")) == 2
                                 and len(css(".message.assistant")[1].find_elements(By.CSS_SELECTOR, ".card")) == 2)
    # The follow-up shows the task's call and the gate's, running: streamed,
    # as nothing of it is stored done yet.
    wait.until(follow_up_cards)
    seen["running_cards"] = [card.text for card in css(".message.assistant")[1].find_elements(By.CSS_SELECTOR, ".card")]
    # Loaded again, the page reads the running follow-up as stored, then is
    # streamed it from its start: shown once, in its place.
    driver.refresh()
    wait.until(follow_up_cards)
    driver.execute_script(OBSERVE)
    with open(gate, "w"):
        pass
    wait.until(lambda d: css(".message.assistant .text")[-1].text.endswith("checked."))
    seen["answers"] = [node.text for node in css(".message.assistant .text")]
    seen["follow_up_cards"] = [card.text for card in css(".message.assistant")[1].find_elements(By.CSS_SELECTOR, ".card")]
    seen["first_answer_kept"] = driver.execute_script("return window.firstAnswer.isConnected")
    seen["texts_shown"] = driver.execute_script("return window.textsShown")
    if os.environ.get("RIVERSE_TEST_SCREENSHOT"):
        driver.save_screenshot(os.environ["RIVERSE_TEST_SCREENSHOT"])
finally:
    stop_chromium()
print(json.dumps(seen))
