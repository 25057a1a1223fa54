"""The OCR engine as the worker process builds and calls it: rapidocr 3.x with the PP-OCRv6
detection and recognition models (Chinese, English and many more in one model) and the
direction classifier that its wheel ships. Nothing is downloaded: each model is named by its
path inside the installed package, so the engine never looks for one on a model hub.

Imported only inside an OCR worker (`tools.ocr.worker`): rapidocr imports OpenCV (the headless
build, which needs no libGL), and where that cannot load the app must still start.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import rapidocr

# The models inside the rapidocr 3.10 wheel; the settings name the version and size too, since
# the engine reads them to pick its pre- and post-processing.
_MODELS = Path(rapidocr.__file__).resolve().parent / "models"
MODELS = {
    "Det": ("PP-OCRv6", "small", "PP-OCRv6_det_small.onnx"),
    "Rec": ("PP-OCRv6", "small", "PP-OCRv6_rec_small.onnx"),
    "Cls": ("PP-OCRv4", "mobile", "ch_ppocr_mobile_v2.0_cls_mobile.onnx"),
}

# One finding: the line's four corners in the image's pixels, its text and the confidence, and
# when character boxes were asked for, each character (spaces left out) with its confidence
# and four corners.
Finding = tuple[Any, ...]


class Engine:
    """Built once per worker; called with a PIL image, it returns the lines it read."""

    def __init__(
        self, text_score: float = 0.5, threads: int = 1, params: dict[str, Any] | None = None
    ) -> None:
        """`params` are rapidocr's own settings ("Det.limit_side_len": 736, ...), over ours."""
        settings: dict[str, Any] = {
            "Global.text_score": text_score,
            # Its log says which model file it uses, and warns of every image without text.
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": threads,
            # Read at the size given (the app prepares images to at most 1568 pixels a side).
            # Its default scales the short side up to 736: a one-line strip then becomes a huge
            # image of giant letters, read word by word, slowly, with words misread.
            "Det.limit_type": "max",
            "Det.limit_side_len": 1568,
            # Turn a line over only when the classifier is all but certain: at its default
            # (0.9) it turns short words such as "9:00" upside down and reads "00:6"; a line
            # that really is upside down scores 1.0.
            "Cls.cls_thresh": 0.99,
        }
        for task, (version, size, name) in MODELS.items():
            settings[f"{task}.ocr_version"] = rapidocr.OCRVersion(version)
            settings[f"{task}.model_type"] = rapidocr.ModelType(size)
            settings[f"{task}.model_path"] = str(_MODELS / name)
        settings.update(params or {})
        self._engine = rapidocr.RapidOCR(params=settings)
        self._turned = False
        self._thresh = float(settings["Cls.cls_thresh"])
        classify = self._engine.cls_and_rotate

        def noting_turns(img: list[Any]) -> Any:
            # Whether a line was turned over to be read: its character boxes then do not lie
            # over its ink (measured on an upside-down notice).
            turned, found = classify(img)
            self._turned = self._turned or any(
                "180" in str(label) and float(score) > self._thresh
                for label, score in found.cls_res or ()
            )
            return turned, found

        self._engine.cls_and_rotate = noting_turns
        # The engine loads each model on its first image; a worker loads them now, so that
        # warming up makes the first reading as quick as the rest.
        for load in ("_load_det_model", "_load_cls_model", "_load_rec_model"):
            getattr(self._engine, load, lambda: None)()

    def __call__(self, image: Any, **settings: Any) -> list[Finding]:
        """`settings` are the engine's call arguments (`return_word_box` and
        `return_single_char_box` for character boxes); they stay set for later calls."""
        self._turned = False
        found = self._engine(image, **settings)
        boxes, texts, scores = (getattr(found, name, None) for name in ("boxes", "txts", "scores"))
        if boxes is None or texts is None or scores is None:
            return []
        lines = [
            (np.asarray(box, dtype=float).tolist(), str(text), float(score))
            for box, text, score in zip(boxes, texts, scores, strict=True)
        ]
        # Per line, its characters (rapidocr's annotation has one line only).
        words: Sequence[Any] = getattr(found, "word_results", None) or ()
        # The engine leaves out the lines it found no character boxes for, so its list is only
        # known to match the lines when it is as long; and a line turned over has them mirrored.
        if len(words) != len(lines) or self._turned:
            return lines
        return [
            (
                *line,
                [
                    (str(ch), float(score), np.asarray(box, float).tolist())
                    for ch, score, box in chars
                ],
            )
            for line, chars in zip(lines, words, strict=True)
        ]
