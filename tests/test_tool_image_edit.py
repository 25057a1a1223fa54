import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageStat
from pydantic import ValidationError

from tests.conftest import png_bytes as png
from tools.base import ToolContext, ToolInputError
from tools.image_edit import ImageEdit

TOOL = ImageEdit()


def marked() -> Image.Image:
    """300x200 white with a red block at the top-left corner."""
    image = Image.new("RGB", (300, 200), "white")
    ImageDraw.Draw(image).rectangle((0, 0, 59, 39), fill=(255, 0, 0))
    return image


def run(store, **arguments):
    return TOOL.run(ImageEdit.Args.model_validate(arguments), ToolContext(store))


def is_red(pixel) -> bool:
    r, g, b = pixel[:3]
    return r > 200 and g < 70 and b < 70


def test_rotate_clockwise_moves_the_corner(store):
    source = store.load(png(marked())).id
    result = run(store, image_id=source, operation="rotate", degrees=90)
    out = result.images[0]
    assert out.id != source and (out.width, out.height) == (200, 300)
    rotated = store.open(out.id).convert("RGB")
    # Clockwise: the top-left corner goes to the top-right.
    assert is_red(rotated.getpixel((195, 5))) and not is_red(rotated.getpixel((5, 5)))
    assert "clockwise" in result.text and out.id in result.text


def test_rotate_counter_clockwise_and_odd_angles(store):
    source = store.load(png(marked())).id
    back = run(store, image_id=source, operation="rotate", degrees=-90).images[0]
    assert is_red(store.open(back.id).convert("RGB").getpixel((5, 295)))
    tilted = run(store, image_id=source, operation="rotate", degrees=30).images[0]
    assert tilted.width > 300 and tilted.height > 200  # expanded to keep the corners


def test_flip_both_ways(store):
    source = store.load(png(marked())).id
    mirrored = run(store, image_id=source, operation="flip").images[0]
    assert is_red(store.open(mirrored.id).convert("RGB").getpixel((295, 5)))
    upside = run(store, image_id=source, operation="flip", direction="vertical").images[0]
    assert is_red(store.open(upside.id).convert("RGB").getpixel((5, 195)))


def test_grayscale_autocontrast_and_sharpen(store):
    source = store.load(png(marked())).id
    gray = store.open(run(store, image_id=source, operation="grayscale").images[0].id)
    assert gray.mode == "L" or len(set(gray.convert("RGB").getpixel((5, 5)))) == 1

    dull = Image.new("RGB", (100, 100), (110, 110, 110))
    ImageDraw.Draw(dull).rectangle((50, 0, 99, 99), fill=(140, 140, 140))
    dull_id = store.load(png(dull)).id
    stretched = store.open(run(store, image_id=dull_id, operation="auto-contrast").images[0].id)
    low, high = ImageStat.Stat(stretched.convert("L")).extrema[0]
    assert low < 40 and high > 215

    soft = marked().filter(ImageFilter.GaussianBlur(3))
    soft_id = store.load(png(soft)).id
    sharp = store.open(run(store, image_id=soft_id, operation="sharpen").images[0].id)
    edges = lambda im: ImageStat.Stat(im.convert("L").filter(ImageFilter.FIND_EDGES)).mean[0]  # noqa: E731
    assert edges(sharp) > edges(soft)


def test_transparency_survives_sharpen(store):
    image = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    ImageDraw.Draw(image).ellipse((8, 8, 56, 56), fill=(0, 120, 255, 255))
    source = store.load(png(image)).id
    out = store.open(run(store, image_id=source, operation="sharpen").images[0].id)
    assert out.mode == "RGBA" and out.getpixel((1, 1))[3] == 0


def test_operation_names_are_forgiving():
    aliases = {
        "greyscale": "grayscale",
        "Mirror": "flip",
        "contrast": "autocontrast",
        "black and white": "grayscale",
        "auto_contrast": "autocontrast",
    }
    for said, meant in aliases.items():
        args = ImageEdit.Args.model_validate({"image_id": "img_1", "operation": said})
        assert args.operation == meant
    args = ImageEdit.Args.model_validate(
        {"image_id": "img_1", "operation": "flip", "direction": "upside down"}
    )
    assert args.direction == "vertical"


def test_bad_arguments_tell_the_model_the_choices():
    with pytest.raises(ValidationError) as caught:
        ImageEdit.Args.model_validate({"image_id": "img_1", "operation": "blur"})
    assert "rotate" in str(caught.value) and "sharpen" in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        ImageEdit.Args.model_validate({"image_id": "img_1", "operation": "rotate", "degrees": 9000})
    assert "360" in str(caught.value)
    with pytest.raises(ValidationError):
        ImageEdit.Args.model_validate({"image_id": "img_1"})  # operation is required


def test_unknown_or_path_like_ids_are_refused(store):
    store.load(png(marked()))
    for hostile in ("img_7", "../img_1", "/etc/passwd"):
        with pytest.raises(ToolInputError) as caught:
            run(store, image_id=hostile, operation="grayscale")
        assert "img_1" in str(caught.value)


def test_one_pixel_image(store):
    source = store.load(png(Image.new("RGB", (1, 1), "red"))).id
    for operation in ("rotate", "flip", "grayscale", "autocontrast", "sharpen"):
        out = run(store, image_id=source, operation=operation).images[0]
        assert (out.width, out.height) == (1, 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rotate it 90 degrees", {"operation": "rotate", "degrees": 90.0}),
        ("rotate img_1 counterclockwise", {"operation": "rotate", "degrees": -90.0}),
        ("it is upside down, please turn it", {"operation": "rotate", "degrees": 180.0}),
        ("flip it vertically", {"operation": "flip", "direction": "vertical"}),
        ("mirror the photo", {"operation": "flip", "direction": "horizontal"}),
        ("make it black and white", {"operation": "grayscale"}),
        ("sharpen this", {"operation": "sharpen"}),
        ("顺时针旋转90度", {"operation": "rotate", "degrees": 90.0}),
        ("逆时针旋转45度", {"operation": "rotate", "degrees": -45.0}),
        ("上下翻转", {"operation": "flip", "direction": "vertical"}),
        ("转成灰度图", {"operation": "grayscale"}),
        ("提高对比度", {"operation": "autocontrast"}),
        ("锐化一下", {"operation": "sharpen"}),
    ],
)
def test_extract_reads_the_operation(text, expected):
    found = TOOL.extract(text, ["img_1", "img_2"], {})
    assert found.pop("image_id") in ("img_1", "img_2")
    assert found == expected
