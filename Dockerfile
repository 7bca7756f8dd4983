# fslab's app for a class, in a container (README "Serving a class").
#   docker build -t fslab .
#   docker run --rm -p 8501:8501 fslab                       # then http://HOST:8501
#   docker run --rm -p 8501:8501 -e FSLAB_MAX_ROWS=500000 fslab # a limit changed at start
# Python 3.11 on Debian 12: the interpreter and the versions (constraints.txt) the test suite ran with.
FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    STREAMLIT_SERVER_HEADLESS=true

# The server's limits (fslab/limits.py; the Home page lists them under "Limits of this server"). One server process
# serves every student, so each input size and each job's work has a ceiling; a refusal names its setting. These
# are the defaults, written out so an operator sees what to change (docker run -e FSLAB_...=...).
# Input sizes
ENV FSLAB_MAX_UPLOAD_MB=50 \
    FSLAB_MAX_ROWS=200000 \
    FSLAB_MAX_COLUMNS=2000 \
    FSLAB_MAX_CELLS=50000000 \
    FSLAB_MAX_FIELD_CHARS=100000 \
    FSLAB_MAX_JSON_BYTES=2000000 \
    FSLAB_MAX_JSON_DEPTH=16 \
    FSLAB_MAX_STATES=100000 \
    FSLAB_MAX_PARSE_MB=2000 \
    FSLAB_MAX_PARSE_SECONDS=120
# Work of one job: exhaustive subsets, lattice features (2^n subsets), NPFS bootstraps, learning-curve fits, the
# cost model's row-tables and predicted peak memory (MB); jobs predicted longer than FSLAB_CONFIRM_SECONDS run only
# on a click
ENV FSLAB_MAX_EXHAUSTIVE_SUBSETS=200000 \
    FSLAB_MAX_LATTICE_FEATURES=12 \
    FSLAB_MAX_BOOTSTRAPS=5000 \
    FSLAB_MAX_CURVE_FITS=2000 \
    FSLAB_MAX_WORK=10000000000 \
    FSLAB_MAX_JOB_MB=2000 \
    FSLAB_CONFIRM_SECONDS=5
# Memory the app keeps: entries and MB of each cached function, MB of results per session (least recently used
# go first). Size the container's memory for about cache_mb x a few caches + session_mb x concurrent students.
ENV FSLAB_CACHE_ENTRIES=32 \
    FSLAB_CACHE_MB=256 \
    FSLAB_SESSION_MB=200
# Optional: NPFS runs on a Dask cluster when set (e.g. tcp://scheduler:8786); empty = on this server.
ENV FSLAB_DASK_SCHEDULER=""

RUN useradd --create-home --uid 10001 fslab
WORKDIR /app

# The package first (a layer reused while only the app changes), installed at the tested versions.
COPY pyproject.toml README.md LICENSE requirements.txt constraints.txt ./
COPY fslab/ fslab/
COPY sample_data/ sample_data/
RUN pip install -c constraints.txt -r requirements.txt

# The app: its entry script, pages, Streamlit helpers and server config (.streamlit/config.toml: 50 MB uploads,
# no file watcher, no usage statistics, no tracebacks shown to users).
COPY app.py ./
COPY pages/ pages/
COPY ui/ ui/
COPY .streamlit/ .streamlit/

USER fslab
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"
CMD ["streamlit", "run", "app.py", "--server.address", "0.0.0.0", "--server.port", "8501"]
