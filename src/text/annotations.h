#pragma once

#include <string>

namespace geoalign::text {

// What people write beside an address that is not part of it, dropped so that an address
// copied from an order or a contact card reads as the address itself:
// - phone numbers: mobiles (13812345678, 138-1234-5678, +86 138 1234 5678) and landlines
//   with an area code (025-84561234, (025)84561234, 0571-8888888-123), with a label before
//   them (电话: 手机 联系电话 tel ...);
// - the recipient's name beside a dropped phone number, when it stands between separators
//   or glued to the number at a field's edge (张三 13812345678, 13812345678,李四,
//   张三13812345678) and looks like a name: two or three Chinese characters, a common
//   surname first, no place word last;
// - a labelled name (收件人:张三, 联系人:李四) and a labelled postcode (邮编210000);
// - a field label at the start, after a separator or after '(' (收货地址: 地址:);
// - a landmark hint in brackets ((近新街口), (靠近地铁站), (距地铁2号线200米)): it says
//   where the place is, and the same place is as often written without it;
// - emoji and pictographs (😀 ⭐ ☎);
// - a bracket that an annotation emptied.
// Reads the text after full-width folding and bracket folding (without them, full-width
// digits and （ ） are not recognized), and before blank cleaning, which would glue a name
// to the address around it.
void drop_annotations(std::u32string& text);

// A delivery note, in brackets or beside the address ((请放门卫), (周末不收货), ，放快递柜,
// 二单元到了打电话): it says how to hand a parcel over, not where. Never empties the text.
// Reads the text after blank cleaning and variant folding, so that a blank or a dot between
// two Chinese characters (到 了打电话, 到·了打电话) cannot hide or cut a note.
void drop_delivery_notes(std::u32string& text);

}  // namespace geoalign::text
