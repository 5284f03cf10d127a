"""Headless Chromium for the browser tests (`check_serve.py`, `check_cross_site.py`): the
system's Chromium (or GLANEUR_CHROMIUM) through its chromedriver (or GLANEUR_CHROMEDRIVER), with
Selenium told to stay offline. Nothing is downloaded."""

import os
import shutil
import sys

os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not download anything

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402


def browser(script, extra_args=()):
    """A headless Chromium driven by Selenium; `script` names the caller in the message shown
    when Chromium or its driver is missing."""
    chromium = os.environ.get("GLANEUR_CHROMIUM") or next(
        (p for p in map(shutil.which, ["chromium", "chromium-browser", "google-chrome"]) if p),
        None,
    )
    driver_path = os.environ.get("GLANEUR_CHROMEDRIVER") or shutil.which("chromedriver")
    if not chromium or not driver_path:
        sys.exit(
            f"{script}: Chromium and chromedriver are needed (Debian: apt-get install "
            "chromium chromium-driver; scripts/test installs them)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1800",
                "--disable-extensions", "--no-first-run", *extra_args]:
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
