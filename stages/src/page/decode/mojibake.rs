//! Mojibake signs: UTF-8 read as windows-1252 (`Ã©` for `é`, `â€™` for `’`), counted in the decoded
//! text as a quality signal.
//!
//! **In:** decoded text. **Out:** the number of mojibake runs.
//!
//! **Invariants:** each run counts once; linear in the text; never panics.

/// Counts mojibake signs: runs of characters whose windows-1252 (or latin-1) bytes form one
/// valid multi-byte UTF-8 sequence, as when UTF-8 was decoded as windows-1252 (`Ã©` for `é`,
/// `â€™` for `’`). Each run counts once. A lead character must be followed by exactly the
/// continuations its UTF-8 length needs, which keeps real text such as `é»` from counting.
pub fn count_mojibake(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut from = 0;
    // Every lead (U+00C2..U+00F4) is encoded as 0xC3 0x82..0xB4, so only those spots are read.
    while let Some(offset) = bytes.get(from..).and_then(|b| memchr::memchr(0xC3, b)) {
        let start = from + offset;
        let mut chars = text.get(start..).unwrap_or("").chars();
        let lead = chars.next().and_then(cp1252_byte);
        let needed = match lead {
            Some(0xC2..=0xDF) => 1,
            Some(0xE0..=0xEF) => 2,
            Some(0xF0..=0xF4) => 3,
            _ => 0,
        };
        // The lead is two bytes long in the text; skip it unless a whole sequence matches.
        from = start + 2;
        if needed == 0 {
            continue;
        }
        let mut seq = [lead.unwrap_or(0), 0, 0, 0];
        let mut consumed = 2;
        let mut ok = true;
        for slot in seq.iter_mut().skip(1).take(needed) {
            match chars.next() {
                Some(c) => match cp1252_byte(c) {
                    Some(b @ 0x80..=0xBF) => {
                        *slot = b;
                        consumed += c.len_utf8();
                    }
                    _ => ok = false,
                },
                None => ok = false,
            }
            if !ok {
                break;
            }
        }
        if ok && std::str::from_utf8(&seq[..=needed]).is_ok() {
            count += 1;
            from = start + consumed;
        }
    }
    count
}

/// The byte a character came from if the text was windows-1252 (or latin-1) decoded bytes.
fn cp1252_byte(c: char) -> Option<u8> {
    let u = u32::from(c);
    if u <= 0xFF {
        return u8::try_from(u).ok();
    }
    Some(match c {
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8A,
        '‹' => 0x8B,
        'Œ' => 0x8C,
        'Ž' => 0x8E,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9A,
        '›' => 0x9B,
        'œ' => 0x9C,
        'ž' => 0x9E,
        'Ÿ' => 0x9F,
        _ => return None,
    })
}
