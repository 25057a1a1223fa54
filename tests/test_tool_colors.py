import time

import pytest
from PIL import Image, ImageDraw
from pydantic import ValidationError

from tests.conftest import png_bytes as png
from tools.base import ToolContext, ToolInputError
from tools.colors import Colors, dominant_colours, nearest_name

TOOL = Colors()


def run(store, **arguments):
    return TOOL.run(Colors.Args.model_validate(arguments), ToolContext(store))


def flag() -> Image.Image:
    """Half blue, a quarter white, a quarter red."""
    image = Image.new("RGB", (400, 200), (0, 40, 200))
    draw = ImageDraw.Draw(image)
    draw.rectangle((200, 0, 399, 99), fill=(255, 255, 255))
    draw.rectangle((200, 100, 399, 199), fill=(220, 0, 0))
    return image


def test_dominant_colours_with_names_hex_and_share(store):
    source = store.load(png(flag())).id
    result = run(store, image_id=source, count=3)
    colours = result.data["colors"]
    assert [c["name"] for c in colours] == ["blue", "white", "red"]
    assert [c["name_zh"] for c in colours] == ["蓝色", "白色", "红色"]
    assert colours[0]["percent"] == pytest.approx(50, abs=2)
    assert colours[1]["percent"] == pytest.approx(25, abs=2)
    assert sum(c["percent"] for c in colours) == pytest.approx(100, abs=1)
    assert all(c["hex"].startswith("#") and len(c["hex"]) == 7 for c in colours)
    assert "blue" in result.text and colours[0]["hex"] in result.text and "%" in result.text


def test_count_limits_the_list(store):
    source = store.load(png(flag())).id
    assert len(run(store, image_id=source, count=1).data["colors"]) == 1
    many = run(store, image_id=source, count=12).data["colors"]
    assert 3 <= len(many) <= 12  # a flat image has only a few colours to report


def test_nearest_names():
    assert nearest_name((250, 250, 250)) == ("white", "白色")
    assert nearest_name((5, 5, 5))[0] == "black"
    assert nearest_name((30, 140, 40))[0] in ("green", "lime")
    assert nearest_name((250, 140, 0))[0] == "orange"


def test_transparent_pixels_do_not_count(store):
    image = Image.new("RGBA", (100, 100), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((0, 0, 49, 99), fill=(255, 215, 0, 255))
    colours = dominant_colours(image, 5)
    assert colours[0]["percent"] == pytest.approx(100, abs=1)
    assert colours[0]["name"] in ("gold", "yellow")
    empty = store.load(png(Image.new("RGBA", (20, 20), (0, 0, 0, 0)))).id
    assert "transparent" in run(store, image_id=empty).text


@pytest.mark.parametrize("count", [0, 13, 1000, "many"])
def test_count_out_of_range(count):
    with pytest.raises(ValidationError) as caught:
        Colors.Args.model_validate({"image_id": "img_1", "count": count})
    assert "count" in str(caught.value)


def test_unknown_or_path_like_ids_are_refused(store):
    store.load(png(flag()))
    for hostile in ("img_2", "../img_1", "..\\..\\secret.png"):
        with pytest.raises(ToolInputError) as caught:
            run(store, image_id=hostile)
        assert "Known image ids: img_1" in str(caught.value)


def test_one_pixel_image(store):
    source = store.load(png(Image.new("RGB", (1, 1), (0, 128, 0)))).id
    colours = run(store, image_id=source).data["colors"]
    assert len(colours) == 1 and colours[0]["percent"] == 100
    assert colours[0]["name"] == "green"


def test_huge_image_stays_fast():
    image = Image.new("RGB", (4000, 4000), (240, 240, 240))
    ImageDraw.Draw(image).ellipse((500, 500, 3500, 3500), fill=(200, 30, 30))
    started = time.perf_counter()
    colours = dominant_colours(image, 12)
    assert time.perf_counter() - started < 2.0
    assert colours[0]["name"] == "white"
    assert colours[1]["name"] in ("red", "crimson")
    assert colours[1]["percent"] == pytest.approx(44, abs=3)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("what colours are in this picture?", None),
        ("top 3 colors of img_1", 3),
        ("list the 8 dominant colours", 8),
        ("图片的主要颜色是什么", None),
        ("前三种颜色", 3),
        ("给我5种颜色", 5),
        ("give me 40 colours", 12),
    ],
)
def test_extract_reads_the_count(text, count):
    found = TOOL.extract(text, ["img_1", "img_2"], {})
    assert found["image_id"] == ("img_1" if "img_1" in text else "img_2")
    assert found.get("count") == count
