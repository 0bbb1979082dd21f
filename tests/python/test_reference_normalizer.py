"""The reference normalizer (tools/reference/address_normalizer.py), which training and the
noise benches use, reads every text as the engine does (`Parser.parse(...)["text"]`)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

import geoalign

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "reference"))
sys.path.insert(0, str(ROOT / "tools" / "bench"))
import address_normalizer  # noqa: E402
import noise_invariance  # noqa: E402

OPTIONS = {"fullwidth_to_halfwidth": True, "clean_whitespace": True, "fold_variants": True, "drop_annotations": True,
           "decode_markup": True}
ADDRESSES = ["南京市鼓楼区中山路100号", "北京朝阳建国路88号SOHO现代城5号楼1201", "蓮湖區金橋花園⑧號樓3單元",
             "三一·新境界(东门)", "湖南路209号(近中山北路)中国银行", "周六福", "Room 3 −", "13812345678",
             "皇岗下围一村52号店铺18823887538甘晓龙", "转给刘用勤:电话15606939899:潭城镇荷花庄103号",
             "建国路86 13812345678", "Shangri-La Hotel 021-68828888", "星巴克(电话 0571-88888888)",
             "电 话:13812345678 中山路", "0086 13812345678", "张三" + " " * 20 + "13812345678",
             "路" + "(近" * 12 + "a" + "a)" * 12, "中" * 30 + " 13812345678,13812345678",
             "(近" + "一" * 22 + ")", "(近" + "一" * 23 + ")", "中山路\u00a0100号\u3000张三\u200b13812345678",
             "文三路100号(请放门卫)", "文三路100号 请 放门卫", "二单元到 了打电话,3楼", "(龙湖工业区,请放门卫)", "请放门卫",
             "周末咖啡(文三路店)", "新成路91号阳光花卉(勿忘我花屋)", "中信&amp;middot;阳光澳园", "&#25991;&#x4E09;路\\n",
             "A&unknown;B", "😀文三😀路⭐️", "❶号楼", "(请第一时间发货,谢谢", "万达广场负一楼", "万达广场 B1 层",
             "地·下1层", "三·B1层", "大厦11F", "万达广场1F层", "7f号", "科技园B1楼", "36号-2楼", "T3-13F",
             # markup decoded in one pass must reach what decoding again and again reaches
             "文三路&amp;amp;amp;nbsp;1号", "&am&amp;p;路", "\\&#110;路", "A&#59;B&amp&#59;路", "&&&&nbsp;路",
             "路&#x000004E09;", "杭州市Cafe\u0301大厦", "杭州市Cafe&#769;大厦"]


@pytest.fixture(scope="module")
def parser() -> geoalign.Parser:
    return geoalign.Parser()


def noisy_texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for address in ADDRESSES:
        annotated = noise_invariance.add_annotation(address, rng)
        noted = noise_invariance.add_note(address, rng)
        texts += [annotated, noise_invariance.add_noise(annotated, rng, 0.2),
                  noise_invariance.add_variants(annotated, rng, 0.1), noted, noise_invariance.add_noise(noted, rng, 0.2)]
    return texts


@pytest.mark.parametrize("seed", range(5))
def test_reference_normalizes_as_the_engine(parser, seed):
    for text in ADDRESSES + noisy_texts(seed):
        assert address_normalizer.normalize(text, OPTIONS) == parser.parse(text)["text"], repr(text)
