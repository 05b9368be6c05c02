"""Drives the chat page of `riverse serve` in headless Chromium.

Usage: page_browser.py URL OUT_DIR; prints one JSON document of what it saw
and saves screenshots in OUT_DIR. Assertions that fail raise, so the script
exits non-zero with the reason.
"""

import json
import os
import sys

import chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

url, out_dir = sys.argv[1:3]
os.makedirs(out_dir, exist_ok=True)

driver, stop_chromium = chromium.start()
seen = {}
try:
    driver.set_window_size(1100, 760)
    wait = WebDriverWait(driver, 30)
    css = lambda selector: driver.find_elements(By.CSS_SELECTOR, selector)
    driver.get(url)
    box = wait.until(lambda d: d.find_element(By.ID, "input"))
    wait.until(lambda d: "weather" in d.find_element(By.ID, "tool-list").get_attribute("textContent"))
    seen["token_form_shown"] = driver.find_element(By.ID, "token-form").is_displayed()
    seen["tools"] = driver.find_element(By.ID, "tool-list").get_attribute("textContent")

    box.send_keys("Weather in Tokyo?")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: len(css(".card.ok")) == 1)
    wait.until(lambda d: "Tokyo is sunny." in css(".message.assistant .text")[-1].text)
    card = css(".card.ok")[0]
    seen["card"] = card.text
    seen["answer"] = css(".message.assistant .text")[-1].text

    box.send_keys("Echo it")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: len(css(".card.ok")) == 2)
    wait.until(lambda d: "Done" in css(".message.assistant .text")[-1].text)
    seen["echo_card"] = css(".card.ok")[1].text
    seen["echo_answer"] = css(".message.assistant .text")[-1].text
    seen["images"] = len(css("#messages img"))
    seen["scripts_in_messages"] = len(css("#messages script"))
    seen["title"] = driver.title
    driver.save_screenshot(os.path.join(out_dir, "page.png"))

    driver.refresh()
    wait.until(lambda d: len(css(".message")) == 4 and len(css(".card.ok")) == 2)
    seen["after_reload"] = [m.text.split("\n")[-1] for m in css(".message")]
    seen["conversations"] = [c.text for c in css("#conversations .title")]
    box = driver.find_element(By.ID, "input")

    # Enter while an IME composition is open picks a candidate; it must not send.
    driver.execute_script("""
        const input = document.getElementById('input');
        input.value = '漢字';
        input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', isComposing: true, bubbles: true, cancelable: true}));
    """)
    seen["composing_kept"] = driver.find_element(By.ID, "input").get_attribute("value")
    seen["messages_after_composing"] = len(css(".message"))

    # The model is down for the next message: a banner says so.
    driver.execute_script("document.getElementById('input').value = ''")
    box.send_keys("Are you there?")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: d.find_element(By.ID, "banner").is_displayed())
    seen["banner"] = driver.find_element(By.ID, "banner").text

    # A call that fails: its card says why, as the kind's words.
    box.send_keys("Weather?")
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: len(css(".card.failed")) == 1)
    wait.until(lambda d: "No city given." in css(".message.assistant .text")[-1].text)
    failed = css(".card.failed")[0]
    seen["failed_card"] = failed.text
    seen["failed_kind"] = failed.find_element(By.CSS_SELECTOR, ".kind").get_attribute("data-kind")
    driver.save_screenshot(os.path.join(out_dir, "failed.png"))

    driver.set_window_size(390, 844)
    seen["phone_overflow"] = driver.execute_script(
        "return document.documentElement.scrollWidth - window.innerWidth")
    driver.save_screenshot(os.path.join(out_dir, "phone.png"))
finally:
    stop_chromium()
print(json.dumps(seen, ensure_ascii=False))
