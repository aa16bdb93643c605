# Tablelens on the embedded defaults: SQLite workspaces under /data, tesseract for screenshots.
FROM python:3.11-slim

RUN apt-get update \
 && apt-get install -y --no-install-recommends tesseract-ocr curl \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY tablelens ./tablelens
COPY ingest ./ingest
COPY storage ./storage
COPY agent ./agent
COPY streamlit_app.py ./
COPY .streamlit ./.streamlit
# torch's CPU build before the rest: sentence-transformers would pull a 6.5 GB CUDA build.
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
RUN pip install --no-cache-dir -e .

ENV TABLELENS_DATA_DIR=/data HF_HUB_OFFLINE=1 HF_HUB_DISABLE_PROGRESS_BARS=1
VOLUME /data
EXPOSE 8501
HEALTHCHECK CMD curl -fsS http://127.0.0.1:8501/_stcore/health || exit 1
CMD ["tablelens", "run", "--address", "0.0.0.0", "--port", "8501"]
