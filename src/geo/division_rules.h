#pragma once

#include <string_view>
#include <vector>

#include "geo/gazetteer.h"
#include "geoalign/parser.h"

// Rules after the tagger for how real addresses name their divisions in ways the tagged
// data never shows.
namespace geoalign::geo {

// Division names written after the street part (朝阳建国路88号北京, 中山路100号南京鼓楼,
// 建国路88号朝阳区北京市). The tagged data always puts them first, so the tagger reads a
// trailing one as redundant or as a POI, and the admin chain misses it. The elements at
// the end of the address that are each nothing but province, city or district names
// (full or short, 北京 or 北京市; towns are too often shop and estate names) become one
// element per name, tagged with its level, when the names can be one place (南京 鼓楼: 南京市
// 鼓楼区, not 广南 商城, two counties) and name a province or a city, or a district in full
// with three characters or more (铜山区; 东区 and 西区 are parts of estates far more often
// than 攀枝花's districts). Only after an element that is no division, so that an address of
// nothing but division names keeps the tagger's reading, unless that reading names no
// division at all: 北京市 or 天津市 alone, which the data's repeated names (北京北京市朝阳区)
// teach the tagger to read as redundant. A bracket or a list mark (separates_elements)
// does not end the tail.
void retag_trailing_divisions(std::vector<AddressElement>& elements, std::u32string_view text,
                              const Gazetteer& gazetteer);

// A municipality (北京, 上海, 天津, 重庆) is a province whose districts lie under no real city,
// and the tagged data calls it a city: 上海市/city 浦东新区/district. Written short before
// one of its districts, the tagger reads it as a province and the district's short name as
// a city (北京/prov 朝阳/city, since 朝阳 is also a city in Liaoning). Where nothing else is
// tagged city, a municipality tagged prov becomes the city, and the element right after it,
// when it names one of the municipality's districts, the district.
void tag_municipality_as_city(std::vector<AddressElement>& elements, const Gazetteer& gazetteer);

// 中国 or 中华人民共和国 as the first element: the tagged data has no country, so the tagger
// reads it as a POI. It is tagged country.
void tag_leading_country(std::vector<AddressElement>& elements);

// The length of a leading 中国 or 中华人民共和国 that comes before a province, city or
// district's full name (中国北京市…, 中华人民共和国浙江省…), else 0. The tagger, which never
// saw a country, reads the whole as a POI or the division as a subpoi, so the parser tags
// the rest alone. Before anything else (中国银行, 中国平安: 平安 is also 平安区's short name)
// it is a name's first word.
std::size_t leading_country(std::u32string_view text, const Gazetteer& gazetteer);

}  // namespace geoalign::geo
