"""Have the browser load the renderers of the elements fslab's pages draw while the reader reads the first page.

Streamlit's browser side loads each element's renderer (a hashed script in its static folder: Plotly's is 4.7 MB,
the data grid's, KaTeX's for ``st.latex``, ...) the first time a session draws that element. Traced on Home -> Toy
(2 cores): 35 scripts and 0.8 s of module evaluation on the browser's main thread, more than half of that click.
The script of :func:`warm_elements` imports them one at a time, each only once the page has been
still for 0.6 s (script idle, no change in the page), so no import runs while a clicked page is drawing: a click
waits behind at most the one import under way. The small renderers the next pages draw first (formulas, tables,
metrics, number boxes, the data grid), then Plotly's 4.7 MB (0.4 s of main thread on a quiet machine), which the
pages after those draw. A page that already drew an element has it, and the import is free. Only the file names of
Streamlit's own bundled scripts, found on disk, enter the script. Not the code highlighter (``st.code``'s, 1.5 MB,
0.3-0.76 s of main thread): no page draws a code block, so loading it would only delay the reader's next click.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from pathlib import Path

import streamlit as st

# Streamlit's renderers of the elements fslab's pages draw, in the order a session is likely to need them: what
# the Toy page (Home's first link) draws on arrival (formulas, its static tables, metrics, number boxes and the
# builder's data grid), then charts (Orderings, Select, the tour), then the other widgets.
ELEMENTS = ("rehype-katex", "Table", "Metric", "NumberInput", "DataFrame", "PlotlyChart", "Radio", "Slider",
            "Multiselect", "DownloadButton", "Progress", "FileUploader")
_NAME = re.compile(r"[A-Za-z-]+\.[A-Za-z0-9_-]+\.js")
_PAUSE_MS = 100
_QUIET_MS = 600  # longer than the 0.5 s a page takes to look settled, so an import never delays a page's last drawing

WARM = """<script>
(() => {
  if (window.__fslabWarm) return;
  window.__fslabWarm = true;
  const main = document.querySelector('script[src*="/static/js/index."]');
  if (!main) return;
  const urls = %s.map((name) => new URL(name, main.src).href);
  let last = performance.now();
  const seen = new MutationObserver(() => { last = performance.now(); });
  seen.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  const still = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.getAttribute("data-test-script-state") === "notRunning" && performance.now() - last > %d;
  };
  const load = (i) => {
    if (i >= urls.length) {
      seen.disconnect();
    } else if (still()) {
      import(urls[i]).catch(() => {}).finally(() => setTimeout(() => load(i + 1), %d));
    } else {
      setTimeout(() => load(i), %d);
    }
  };
  setTimeout(() => load(0), %d);
})();
</script>"""


def static_folder() -> Path:
    """Where Streamlit keeps its browser scripts."""
    return Path(st.__file__).parent / "static" / "static" / "js"


@functools.cache
def element_scripts() -> tuple[str, ...]:
    """The file names (hashed per Streamlit release) of the renderers in :data:`ELEMENTS` that this Streamlit has;
    one it lacks is logged once and skipped (tests/test_warm.py fails on such a Streamlit; pages still work, only
    the early load of that renderer is lost)."""
    names = {p.name for p in static_folder().glob("*.js") if _NAME.fullmatch(p.name)}
    found = []
    for element in ELEMENTS:
        matches = sorted(n for n in names if n.split(".")[0] == element)
        if matches:
            found.append(matches[0])
        else:
            logging.getLogger(__name__).warning("fslab: no %s.*.js in %s (this Streamlit renamed a renderer); it is "
                                                "not loaded ahead of its first use", element, static_folder())
    return tuple(found)


def warm_script() -> str | None:
    """The sidebar script that imports :func:`element_scripts` once the first page has settled (None: none found)."""
    names = element_scripts()
    return WARM % (json.dumps(list(names)), _QUIET_MS, _PAUSE_MS, _PAUSE_MS, _PAUSE_MS) if names else None


def warm_elements() -> None:
    """Draw :func:`warm_script` in the sidebar (a script element the browser runs once per session)."""
    script = warm_script()
    if script is not None:
        st.sidebar.html(script, unsafe_allow_javascript=True)
