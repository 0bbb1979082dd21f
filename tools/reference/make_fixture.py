#!/usr/bin/python3
"""Builds the tiny random BERT classifier under tests/fixtures/tiny_bert and the golden
files under tests/golden that the C++ tests compare against, so CI needs no PyTorch.

    /usr/bin/python3 tools/reference/make_fixture.py

Deterministic: the same seed gives the same files.
"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import safetensors_io  # noqa: E402
from bert_reference import BertReference  # noqa: E402
from bert_tokenizer import BertTokenizer, load_vocab  # noqa: E402
from random_bert import random_bert_weights, write_folder  # noqa: E402

# Characters of everyday Chinese addresses (written for this fixture, not taken from data).
ADDRESS_CHARS = (
    "省市区县镇乡村街道路巷弄号楼栋幢座单元层室户门牌院园小区花苑公寓大厦广场中心商城店铺"
    "东西南北中前后左右上下内外新老一二三四五六七八九十百千零两第期座段支分总"
    "北京上海天津重庆河北山西辽宁吉林黑龙江苏浙安徽福建江西山东河南湖北湖南广东广西海南四川贵州云南"
    "陕西甘肃青海台湾内蒙古宁夏新疆西藏香港澳门朝阳海淀丰台昌平顺义通州大兴房山密云延庆"
    "杭州宁波温州嘉兴湖州绍兴金华衢州舟山台州丽水深圳福田罗湖南山宝安龙岗盐田成都武汉长沙"
    "建国人民解放和平文化学府科技工业开发高新经济产业园医院学校银行酒店超市饭菜馆公司集团"
    "有限责任厂站场桥湾港口岛山水林田湖河江沟坡岭岗塘庄屯寨堡营关城墙宫寺庙塔亭阁"
    "华兴隆盛昌荣泰安康宁平顺发达富贵祥瑞福寿金银铜铁玉石红黄蓝白绿紫春夏秋冬风雨雪月日星"
    "对面附近旁边隔壁交叉口斜往米处楼下楼上底商铺面号院甲乙丙丁"
)
WORDS = ["α", "##σ", "##ς", "road", "street", "room", "floor", "build", "##ing", "##s", "un", "##able", "caf", "##e", "σ", "ς",
         "é", "##é", "ii", "##i"]
TOKENIZER_TEXTS = [
    "北京市朝阳区建国路88号",
    "北京朝阳建外88号",
    "朝阳建国路88号北京",
    "杭州市西湖区文三路478号华星科技大厦A座1203室",
    "ＡＢＣ１２３号楼",
    "深圳市南山区科技园Ｂ栋３０１",
    "Room 1203B, Building 5, Street 88",
    "建国路88号,近地铁站(东南口)",
    "",
    "   ",
    "上海\t浦东\n新区\r陆家嘴",
    "北京[SEP]上海[CLS]",
    "[sep]",
    "Café ΑΣ İ",
    "unbuildable roads",
    "零\u200b宽\u00a0空\u3000格\u2028行",
    "control\x01\x7f\x1fchars",
    "兼容\uf900\ufa0e字",
    "emoji 😀 与 ㄅ 注音",
    "x" * 120 + " 路",
    "中山路" * 60,
]
PAIRS = [
    ("北京市朝阳区建国路88号", "北京朝阳建外88号"),
    ("北京市朝阳区建国路88号", "朝阳建国路88号北京"),
    ("杭州市西湖区文三路478号华星科技大厦A座1203室", "文三路478号华星大厦"),
    ("深圳市南山区科技园Ｂ栋３０１", "深圳南山科技园B栋301室"),
    ("上海市浦东新区陆家嘴环路1000号", "上海市黄浦区南京东路100号"),
    ("广州市天河区体育西路191号中石化大厦", "天河区体育西路191号"),
    ("成都市武侯区人民南路四段1号", "成都武侯人民南路4段1号"),
    ("Room 1203B, Building 5", "5号楼1203B室"),
    ("", "北京"),
    ("中山路" * 60, "中山路" + "一二三" * 30),
    ("宁波市海曙区中山西路 2 号", "宁波　海曙　中山西路２号"),
    ("重庆市渝中区解放碑步行街", "重庆渝中区解放碑"),
]


def write_vocab(path):
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    seen = set(tokens)

    def add(t):
        if t not in seen:
            seen.add(t)
            tokens.append(t)

    for cp in range(33, 127):
        c = chr(cp)
        if not c.isupper():
            add(c)
    for c in "0123456789abcdefghijklmnopqrstuvwxyz":
        add("##" + c)
    for c in ADDRESS_CHARS:
        add(c)
    for w in WORDS:
        add(w)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(tokens) + "\n")


def tokenizer_golden(vocab_path):
    vocab = load_vocab(vocab_path)
    variants = {
        "default": {},
        "cased": {"do_lower_case": False},
        "keep_accents": {"strip_accents": False},
        "no_cjk_split": {"tokenize_chinese_chars": False},
    }
    cases = []
    for name, options in variants.items():
        tok = BertTokenizer(vocab, **options)
        for text in TOKENIZER_TEXTS:
            tokens = tok.tokenize(text)
            cases.append({"variant": name, "options": options, "text": text, "tokens": tokens, "ids": tok.ids(tokens)})
    tok = BertTokenizer(vocab)
    pairs = []
    for max_length in (128, 16, 7):
        for a, b in PAIRS:
            ids, types = tok.encode_pair(a, b, max_length)
            pairs.append({"a": a, "b": b, "max_length": max_length, "input_ids": ids, "token_type_ids": types})
    return {"cases": cases, "pairs": pairs}


def model_golden(folder):
    torch.set_num_threads(2)
    ref = BertReference(folder)
    pairs = [list(p) for p in PAIRS]
    addresses = sorted({a for p in PAIRS for a in p})
    with torch.inference_mode():
        logits = ref.logits(PAIRS)
        out = {
            "pairs": pairs,
            "logits": logits.tolist(),
            "probabilities": torch.softmax(logits, -1).tolist(),
            "addresses": addresses,
            "mean_embeddings": ref.embed(addresses, "mean").tolist(),
            "cls_embeddings": ref.embed(addresses, "cls").tolist(),
        }
        # The same folder with geoalign's normalization switched on.
        ref.normalize = {"fullwidth_to_halfwidth": True, "clean_whitespace": True}
        out["normalized_logits"] = ref.logits(PAIRS).tolist()
    return out


def main():
    folder = os.path.join(ROOT, "tests", "fixtures", "tiny_bert")
    golden = os.path.join(ROOT, "tests", "golden")
    os.makedirs(folder, exist_ok=True)
    os.makedirs(golden, exist_ok=True)
    write_vocab(os.path.join(folder, "vocab.txt"))
    vocab_size = len(load_vocab(os.path.join(folder, "vocab.txt")))
    config = {
        "architectures": ["BertForSequenceClassification"], "model_type": "bert",
        "vocab_size": vocab_size, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 64, "hidden_act": "gelu", "max_position_embeddings": 128, "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
        "id2label": {"0": "not_match", "1": "partial_match", "2": "exact_match"},
        "label2id": {"not_match": 0, "partial_match": 1, "exact_match": 2},
    }
    weights = random_bert_weights(config, seed=20261130, std=0.3, classifier_std=0.4)
    write_folder(folder, config, weights)
    with open(os.path.join(golden, "tokenizer_cases.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_golden(os.path.join(folder, "vocab.txt")), f, ensure_ascii=False, indent=1)
    with open(os.path.join(golden, "tiny_bert_outputs.json"), "w", encoding="utf-8") as f:
        json.dump(model_golden(folder), f, ensure_ascii=False)
    print("wrote", folder, "and", golden)


if __name__ == "__main__":
    main()
