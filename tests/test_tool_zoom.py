import pytest
from PIL import Image, ImageDraw
from pydantic import ValidationError

from agent.images.store import ImageStore
from tests.conftest import png_bytes as png
from tools.base import ToolContext, ToolInputError
from tools.zoom import Zoom

TOOL = Zoom()


def quadrants() -> Image.Image:
    """400x300: red top-left quarter, blue bottom-right quarter, white elsewhere."""
    image = Image.new("RGB", (400, 300), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, 199, 149), fill=(255, 0, 0))
    draw.rectangle((200, 150, 399, 299), fill=(0, 0, 255))
    return image


def run(store, **arguments):
    return TOOL.run(Zoom.Args.model_validate(arguments), ToolContext(store))


def test_named_region_returns_a_new_enlarged_image(store):
    source = store.load(png(quadrants())).id
    result = run(store, image_id=source, region="top-left", factor=2)
    assert len(result.images) == 1
    out = result.images[0]
    assert out.id != source and out.id in store.ids()
    assert (out.width, out.height) == (400, 300)
    assert out.id in result.text and "top-left" in result.text
    zoomed = store.open(out.id).convert("RGB")
    r, g, b = zoomed.getpixel((200, 150))
    assert r > 200 and g < 60 and b < 60
    assert result.data["crop"] == [0, 0, 200, 150]


def test_fraction_and_pixel_boxes(store):
    source = store.load(png(quadrants())).id
    quarter = run(store, image_id=source, box=[0.5, 0.5, 1, 1], factor=1)
    assert (quarter.images[0].width, quarter.images[0].height) == (200, 150)
    assert store.open(quarter.images[0].id).convert("RGB").getpixel((100, 75))[2] > 200
    pixels = run(store, image_id=source, box=[10, 20, 110, 70], factor=3)
    assert (pixels.images[0].width, pixels.images[0].height) == (300, 150)
    assert pixels.data["crop"] == [10, 20, 110, 70]


def test_output_is_capped_and_says_so(store):
    source = store.load(png(quadrants())).id
    result = run(store, image_id=source, region="whole", factor=8)
    out = result.images[0]
    assert max(out.width, out.height) <= 2048
    assert "capped" in result.text


def test_region_names_are_forgiving():
    assert Zoom.Args.model_validate({"image_id": "img_1", "region": "Upper Left"}).region == (
        "top-left"
    )
    assert Zoom.Args.model_validate({"image_id": "img_1", "region": "centre"}).region == "center"
    box = Zoom.Args.model_validate({"image_id": "img_1", "box": "0.1, 0.2, 0.5, 0.6"}).box
    assert box == [0.1, 0.2, 0.5, 0.6]


@pytest.mark.parametrize("factor", [1000, 0.5, -2, "9x"])
def test_factor_out_of_range_names_the_allowed_range(factor):
    with pytest.raises(ValidationError) as caught:
        Zoom.Args.model_validate({"image_id": "img_1", "factor": factor})
    assert "between 1 and 8" in str(caught.value)


def test_bad_region_and_box_shapes_are_rejected_with_the_choices():
    with pytest.raises(ValidationError) as caught:
        Zoom.Args.model_validate({"image_id": "img_1", "region": "the sky"})
    assert "top-left" in str(caught.value) and "bottom-half" in str(caught.value)
    with pytest.raises(ValidationError):
        Zoom.Args.model_validate({"image_id": "img_1", "box": [0.1, 0.2, 0.3]})
    with pytest.raises(ValidationError) as caught:
        Zoom.Args.model_validate({"image_id": "img_1", "box": "left side please"})
    assert "four numbers" in str(caught.value)
    with pytest.raises(ValidationError):
        Zoom.Args.model_validate({"region": "center"})  # image_id is required


@pytest.mark.parametrize(
    ("box", "words"),
    [
        ([0.5, 0.5, 0.5, 0.9], "empty"),
        ([0.8, 0.1, 0.2, 0.9], "x0 < x1"),
        ([0, 0, 5000, 10], "400x300"),
        ([-0.1, 0, 0.5, 0.5], "negative"),
    ],
)
def test_empty_or_outside_box_is_the_models_mistake(store, box, words):
    source = store.load(png(quadrants())).id
    with pytest.raises(ToolInputError) as caught:
        run(store, image_id=source, box=box)
    assert words in str(caught.value)


def test_image_of_another_session_or_a_path_is_refused(store, tmp_path):
    other = ImageStore(root=tmp_path / "other")
    for colour in ("green", "olive", "navy"):
        foreign = other.load(png(Image.new("RGB", (50, 50), colour))).id
    store.load(png(quadrants()))
    store.load(png(Image.new("RGB", (60, 40), "yellow")))
    with pytest.raises(ToolInputError) as caught:
        run(store, image_id=foreign)
    assert "img_1, img_2" in str(caught.value)
    for hostile in ("../img_1", "../../etc/passwd", str(tmp_path / "other" / "img_1.png")):
        with pytest.raises(ToolInputError) as caught:
            run(store, image_id=hostile)
        assert "Known image ids" in str(caught.value)


def test_one_pixel_image_zooms(store):
    source = store.load(png(Image.new("RGB", (1, 1), (10, 200, 30)))).id
    result = run(store, image_id=source, region="top-left", factor=8)
    assert (result.images[0].width, result.images[0].height) == (8, 8)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("zoom into the top left corner 3x", {"region": "top-left", "factor": 3.0}),
        ("Can you enlarge the middle by 4?", {"region": "center", "factor": 4.0}),
        ("zoom on the bottom half", {"region": "bottom-half"}),
        ("zoom 100x please", {"factor": 8.0}),
        ("放大左上角", {"region": "top-left"}),
        ("把右下角放大3倍", {"region": "bottom-right", "factor": 3.0}),
        ("看看中间的局部", {"region": "center"}),
        ("放大上半部分", {"region": "top-half"}),
    ],
)
def test_extract_reads_region_and_factor(text, expected):
    found = TOOL.extract(text, ["img_1", "img_2"], {})
    assert found.pop("image_id") == "img_2"
    assert found == expected


def test_extract_prefers_a_named_image():
    assert TOOL.extract("zoom into img_1", ["img_1", "img_2"], {})["image_id"] == "img_1"
    assert "image_id" not in TOOL.extract("zoom in", ["img_1"], {"image_id": "img_1"})
    assert TOOL.extract("zoom in", [], {}) == {}
