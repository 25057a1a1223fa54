import io
import re

import pytest
from PIL import ExifTags, Image
from PIL.TiffImagePlugin import IFDRational
from pydantic import ValidationError

from agent.images.store import ImageStore
from agent.models.offline.tool_hints import hints_for
from tests.conftest import png_bytes as png
from tools.base import ImageRef, ToolContext, ToolInputError
from tools.image_info import ImageInfo, summarise_exif

TOOL = ImageInfo()


def photo_with_exif(size=(3000, 2000)) -> bytes:
    image = Image.new("RGB", size, (90, 140, 200))
    exif = Image.Exif()
    exif[0x010F] = "Canon"
    exif[0x0110] = "Canon EOS R5"
    details = exif.get_ifd(ExifTags.IFD.Exif)
    details[0x9003] = "2024:05:01 14:32:10"
    details[0x829A] = IFDRational(1, 125)
    details[0x829D] = IFDRational(28, 10)
    details[0x8827] = 200
    details[0x920A] = IFDRational(50, 1)
    details[0xA434] = "RF24-105mm F4 L IS USM"
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[1] = "N"
    gps[2] = (IFDRational(48, 1), IFDRational(51, 1), IFDRational(2964, 100))
    gps[3] = "W"
    gps[4] = (IFDRational(2, 1), IFDRational(17, 1), IFDRational(4014, 100))
    gps[5] = b"\x00"
    gps[6] = IFDRational(35, 1)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", exif=exif, quality=80)
    return buffer.getvalue()


def run(store, **arguments):
    return TOOL.run(ImageInfo.Args.model_validate(arguments), ToolContext(store))


def test_photo_size_format_and_exif(store):
    source = store.load(photo_with_exif()).id
    result = run(store, image_id=source)
    data = result.data
    assert (data["width"], data["height"]) == (3000, 2000)
    assert (data["prepared_width"], data["prepared_height"]) == (1568, 1045)
    assert data["format"] == "JPEG" and data["mode"] == "RGB"
    exif = data["exif"]
    assert exif["camera"] == "Canon EOS R5"
    assert exif["lens"] == "RF24-105mm F4 L IS USM"
    assert exif["taken"] == "2024-05-01 14:32:10"
    assert exif["exposure_time"] == "1/125 s" and exif["f_number"] == "f/2.8"
    assert exif["iso"] == 200 and exif["focal_length"] == "50 mm"
    assert exif["gps"]["latitude"] == pytest.approx(48.858233, abs=1e-5)
    assert exif["gps"]["longitude"] == pytest.approx(-2.294483, abs=1e-5)
    assert exif["gps"]["altitude_m"] == 35
    for words in ("3000x2000", "JPEG", "Canon EOS R5", "2024-05-01 14:32:10", "1/125 s",
                  "f/2.8", "ISO 200", "48.858233, -2.294483", "1568x1045"):  # fmt: skip
        assert words in result.text


def test_image_without_exif_says_so(store):
    source = store.load(png(Image.new("RGBA", (64, 32), (0, 0, 0, 0)))).id
    result = run(store, image_id=source)
    assert result.data["exif"] == {}
    assert "64x32" in result.text and "No camera metadata" in result.text


def test_exif_in_other_shapes_is_understood():
    numeric = {
        "271": "NIKON CORPORATION",
        "272": "NIKON D750",
        "ExifOffset": {36867: "2019:07:04 09:00:00", 33434: (1, 4000), 33437: "56/10"},
        "GPSInfo": {1: b"S", 2: ((33, 1), (51, 1), (3120, 100)), 3: "E", 4: (151.2, 0, 0)},
    }
    found = summarise_exif(numeric)
    assert found["camera"] == "NIKON D750"  # the maker is already in the model's name
    assert summarise_exif({"Make": "Apple", "Model": "iPhone 15"})["camera"] == "Apple iPhone 15"
    assert found["taken"] == "2019-07-04 09:00:00"
    assert found["exposure_time"] == "1/4000 s" and found["f_number"] == "f/5.6"
    assert found["gps"]["latitude"] == pytest.approx(-33.858667, abs=1e-5)
    assert found["gps"]["longitude"] == pytest.approx(151.2)
    decimal = summarise_exif({"GPSLatitude": 35.6586, "GPSLongitude": 139.7454})
    assert decimal["gps"] == {"latitude": 35.6586, "longitude": 139.7454}


def test_broken_or_hostile_exif_is_left_out():
    found = summarise_exif(
        {
            "Make": "Evil\x00\u202e" + "x" * 500,
            "ExposureTime": "1/0",
            "FNumber": float("nan"),
            "GPSLatitude": 123.0,  # impossible
            "GPSLongitude": 10.0,
            "ISOSpeedRatings": "lots",
        }
    )
    assert len(found["camera"]) <= 80 and "\x00" not in found["camera"]
    assert set(found) == {"camera"}


def test_store_without_metadata_still_gives_the_size():
    class BareStore:
        def __init__(self):
            self.image = Image.new("L", (10, 20))

        def ids(self):
            return ["img_1"]

        def open(self, image_id):
            return self.image.copy()

        def add(self, image, label=""):
            return ImageRef(id="img_2", width=image.width, height=image.height)

    result = TOOL.run(ImageInfo.Args(image_id="img_1"), ToolContext(BareStore()))
    assert (result.data["width"], result.data["height"]) == (10, 20)
    assert "10x20" in result.text


def test_bad_arguments():
    with pytest.raises(ValidationError) as caught:
        ImageInfo.Args.model_validate({"id": "img_1"})
    assert "image_id" in str(caught.value)


def test_unknown_or_path_like_ids_are_refused(store, tmp_path):
    other = ImageStore(root=tmp_path / "other")
    other.load(png(Image.new("RGB", (5, 5), "red")))
    foreign = other.load(png(Image.new("RGB", (5, 5), "blue"))).id
    store.load(photo_with_exif((40, 30)))
    for hostile in (foreign, "../images/img_1.jpg", "/etc/passwd", "img_1/../../x"):
        with pytest.raises(ToolInputError) as caught:
            run(store, image_id=hostile)
        assert "Known image ids: img_1" in str(caught.value)


def test_one_pixel_image(store):
    source = store.load(png(Image.new("RGB", (1, 1), "white"))).id
    assert "1x1" in run(store, image_id=source).text


@pytest.mark.parametrize(
    "text",
    [
        "what camera took this?",
        "when was this photo taken",
        "where was it taken? check the GPS",
        "show me the EXIF",
        "what's the size of img_2",
        "这张照片是什么时候拍摄的",
        "看看图片信息",
        "这张图的分辨率是多少",
    ],
)
def test_extract_and_triggers(text):
    assert TOOL.extract(text, ["img_1", "img_2"], {}) == {"image_id": "img_2"}
    assert any(re.search(p, text, re.IGNORECASE) for p in hints_for(ImageInfo).triggers)
