"""Synthetic Chinese address pairs for pretraining and fine-tuning, driven by the
gazetteer and small lexicons written here. The rules follow the CCKS annotation:

exact_match (2), the same place at the same granularity, written differently:
  admin levels dropped or abbreviated (北京市朝阳区 -> 朝阳), town dropped; building
  synonyms (栋/座/幢/号楼); Chinese vs Arabic numerals; full-width characters; a
  look-alike typo; POI and road order swapped.
partial_match (1), overlapping but one side coarser, finer or partly different:
  one side stops at the road number or at the POI while the other names a building,
  floor or room; the same complex with another building.
not_match (0), different places that look alike (hard negatives):
  the same road with another number; the same POI name in another city; another road
  with the same number; an unrelated address from the same district.
"""
import random

from gazetteer import Gazetteer, short_name

ROAD_CORES = ("建设 人民 中山 解放 和平 新华 文化 东风 胜利 长江 黄河 青年 工业 发展 科技 学府 花园 迎宾 滨江 滨河 "
              "光明 幸福 振兴 朝阳 团结 繁荣 民主 红旗 友谊 育才 长安 南京 北京 延安 湖滨 环城 世纪 金桥 银河 "
              "凤凰 龙华 桃园 金沙 翠湖 江南 望江 临江 东湖 西湖 华山 泰山 黄山 天府 锦绣 广场 商业 体育").split()
ROAD_SUFFIXES = ["路", "路", "路", "街", "大道", "大街", "巷", "道", "西路", "东路", "南路", "北路", "中路"]
POI_CORES = ("金色 阳光 幸福 华府 世纪 城市 国际 万达 恒大 碧桂园 绿地 保利 万科 龙湖 融创 星河 海景 翡翠 "
             "锦江 香榭 丽都 名苑 雅居 书香 御景 君悦 东方 明珠 银座 金融 财富 创新 智慧 未来 新城 紫荆 "
             "桂花 兰亭 枫林 银杏 香樟 海岸 山水 天地 时代 中央 滨湖 学院 人民 中心 第一 华润 招商").split()
POI_TYPES = ["小区", "花园", "大厦", "广场", "公寓", "家园", "苑", "城", "中心", "商城", "大楼", "新村", "名苑", "华庭"]
SHOP_TYPES = ["超市", "酒店", "药店", "医院", "银行", "幼儿园", "中学", "小学", "餐厅", "便利店", "诊所", "公司"]
BUILDING = ["栋", "幢", "座", "号楼"]
NOISE = ["附近", "旁边", "对面", "斜对面", "往东50米", "北侧", "旁"]
LOOKALIKE = {"路": "璐", "号": "浩", "区": "去", "苑": "园", "厦": "夏", "城": "成", "建": "健", "华": "化", "新": "心",
             "东": "冬", "阳": "杨", "花": "华", "园": "圆", "栋": "动", "座": "坐", "楼": "搂", "室": "市"}
DIGITS = "零一二三四五六七八九"


def chinese_number(n):
    if n < 10:
        return DIGITS[n]
    if n < 20:
        return "十" + (DIGITS[n % 10] if n % 10 else "")
    if n < 100:
        return DIGITS[n // 10] + "十" + (DIGITS[n % 10] if n % 10 else "")
    return str(n)


def fullwidth(s):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


class Place:
    """One concrete address as its parts, rendered with random surface variation."""

    def __init__(self, rng, gaz):
        self.rng = rng
        self.admin = gaz.random_town(rng)
        self.road = rng.choice(ROAD_CORES) + rng.choice(ROAD_SUFFIXES)
        self.number = rng.randint(1, 999)
        self.poi = rng.choice(POI_CORES) + rng.choice(POI_TYPES + SHOP_TYPES)
        self.building = rng.randint(1, 30)
        self.unit = rng.randint(1, 6) if rng.random() < 0.5 else None
        self.room = rng.randint(1, 32) * 100 + rng.randint(1, 8) if rng.random() < 0.6 else None

    def copy(self):
        p = Place.__new__(Place)
        p.__dict__ = dict(self.__dict__)
        return p

    def render(self, depth=4, vary=True):
        """depth: 1 road+number, 2 +POI, 3 +building, 4 +unit/room."""
        rng = self.rng
        parts = []
        keep_from = rng.choice([0, 0, 1, 2, 2, 3]) if vary else 0
        for i, (level, name) in enumerate(self.admin):
            if i < keep_from or (level == "town" and vary and rng.random() < 0.6):
                continue
            parts.append(short_name(name) if vary and rng.random() < 0.4 else name)
        number = str(self.number)
        if vary and self.number < 100 and rng.random() < 0.15:
            number = chinese_number(self.number)
        road = self.road + number + "号"
        body = [road]
        if depth >= 2:
            body = [road, self.poi] if not vary or rng.random() < 0.85 else [self.poi, road]
        if depth >= 3:
            b = rng.choice(BUILDING) if vary else "栋"
            n = chinese_number(self.building) if vary and b != "号楼" and rng.random() < 0.2 else str(self.building)
            body.append(n + b)
        if depth >= 4:
            if self.unit:
                body.append(str(self.unit) + "单元")
            if self.room:
                body.append(str(self.room) + ("室" if not vary or rng.random() < 0.7 else "号"))
        text = "".join(parts + body)
        if vary and rng.random() < 0.1:
            text = fullwidth(text)
        if vary and rng.random() < 0.05:
            text += rng.choice(NOISE)
        if vary and rng.random() < 0.08:
            chars = [i for i, c in enumerate(text) if c in LOOKALIKE]
            if chars:
                i = rng.choice(chars)
                text = text[:i] + LOOKALIKE[text[i]] + text[i + 1:]
        return text


def make_pair(rng, gaz):
    """One labelled pair: (addr1, addr2, label)."""
    p = Place(rng, gaz)
    r = rng.random()
    if r < 0.3:  # exact: same place, same depth, different surface
        depth = rng.choice([1, 2, 3, 4])
        return p.render(depth), p.render(depth), 2
    if r < 0.55:  # partial: one side coarser, or another building of the same complex
        if rng.random() < 0.7:
            d1 = rng.choice([3, 4])
            d2 = rng.randint(1, d1 - 1)
            pair = [p.render(d1), p.render(d2)]
        else:
            q = p.copy()
            q.building = p.building + rng.choice([1, 2, 3, 5])
            pair = [p.render(3), q.render(3)]
        rng.shuffle(pair)
        return pair[0], pair[1], 1
    q = p.copy()  # not: a near miss
    kind = rng.random()
    if kind < 0.35:
        q.number = max(1, p.number + rng.choice([-10, -4, -2, 2, 4, 6, 10, 100]))
    elif kind < 0.6:
        q.admin = gaz.random_town(rng)
        q.road = rng.choice(ROAD_CORES) + rng.choice(ROAD_SUFFIXES)
    elif kind < 0.8:
        q.road = rng.choice(ROAD_CORES) + rng.choice(ROAD_SUFFIXES)
        q.poi = rng.choice(POI_CORES) + rng.choice(POI_TYPES + SHOP_TYPES)
    else:
        q = Place(rng, gaz)
        q.admin = p.admin
    depth = rng.choice([1, 2, 2, 3, 4])
    return p.render(depth), q.render(rng.choice([depth, max(1, depth - 1)])), 0


def synthetic_pairs(n, seed=0, gaz=None):
    rng = random.Random(seed)
    gaz = gaz or Gazetteer()
    return [make_pair(rng, gaz) for _ in range(n)]


def synthetic_addresses(n, seed=0, gaz=None):
    rng = random.Random(seed)
    gaz = gaz or Gazetteer()
    return [Place(rng, gaz).render(rng.choice([1, 2, 3, 4])) for _ in range(n)]


if __name__ == "__main__":
    import sys
    for a, b, label in synthetic_pairs(int(sys.argv[1]) if len(sys.argv) > 1 else 20, seed=1):
        print(f"{a}\t{b}\t{label}")
