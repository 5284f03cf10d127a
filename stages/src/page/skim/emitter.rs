//! The html5gum emitter: collects what a tag or a run of text is made of, in buffers kept across
//! tokens, and hands it whole to the state; switches the tokenizer to the raw-text states after
//! `<script>`, `<style>`, `<title>`, `<textarea>`…, as a tree builder would.
//!
//! **In:** the tokenizer's callbacks (byte slices of the page). **Out:** calls on the skim's state.
//!
//! **Invariants:** copies only the text the skim keeps (an inline script's included, for its
//! JavaScript links), the attributes of the few elements it reads and, on the others, those that
//! may hold a JavaScript link (judged by name before their value is copied); unwinds with
//! [`TooManyAttributes`] at a tag past the attribute limit.

use std::convert::Infallible;

use html5gum::{Emitter, Error, State as Mode};

use super::state::{Keep, Tag};
use super::{State, TooManyAttributes};
use crate::page::script_links::is_script_attribute;

/// The html5gum emitter: collects what a tag or a run of text is made of, in buffers kept
/// across tokens, and hands it whole to the [`State`].
pub(super) struct Reader<'s> {
    state: &'s mut State,
    /// Text since the last tag, when the state reads it.
    chars: Vec<u8>,
    /// The current tag's name.
    name: Vec<u8>,
    /// The last start tag's name: the tokenizer leaves a raw-text state at its end tag only.
    last_start: Vec<u8>,
    is_end_tag: bool,
    self_closing: bool,
    /// Which of the current tag's attributes are kept.
    keep_attrs: Keep,
    /// The current attribute's name is still to be judged ([`Keep::Scripted`]).
    unjudged: bool,
    /// The current attribute is left out: its value is not copied.
    dropped: bool,
    /// The current tag's attribute names and values, and where each is (see [`Tag`]).
    attr_bytes: Vec<u8>,
    attrs: Vec<(usize, usize, usize)>,
    /// Attributes of the current tag so far.
    attributes: usize,
}

impl<'s> Reader<'s> {
    pub(super) fn new(state: &'s mut State) -> Self {
        Reader {
            state,
            chars: Vec::new(),
            name: Vec::new(),
            last_start: Vec::new(),
            is_end_tag: false,
            self_closing: false,
            keep_attrs: Keep::Nothing,
            unjudged: false,
            dropped: false,
            attr_bytes: Vec::new(),
            attrs: Vec::new(),
            attributes: 0,
        }
    }

    fn flush_chars(&mut self) {
        if self.chars.is_empty() {
            return;
        }
        if self.state.script_bytes(&self.chars) {
            self.chars.clear();
            return;
        }
        // Text is cut at tags only, so the run is whole characters (UTF-8: the lossy
        // conversion borrows). NUL in text is a parse error that browsers drop; html5ever's
        // tokenizer sent it apart, as a token the skim ignored.
        let text = String::from_utf8_lossy(&self.chars);
        if memchr::memchr(0, text.as_bytes()).is_some() {
            self.state.characters(&text.replace('\0', ""));
        } else {
            self.state.characters(&text);
        }
        self.chars.clear();
    }

    fn init_tag(&mut self, is_end_tag: bool) {
        self.name.clear();
        self.is_end_tag = is_end_tag;
        self.self_closing = false;
        self.keep_attrs = Keep::Nothing;
        self.unjudged = false;
        self.dropped = false;
        self.attr_bytes.clear();
        self.attrs.clear();
        self.attributes = 0;
    }

    /// Under [`Keep::Scripted`], once the current attribute's name is complete: left out (name
    /// and value) unless it may hold a JavaScript link.
    fn judge(&mut self) {
        if !self.unjudged {
            return;
        }
        self.unjudged = false;
        if let Some(&(from, to, _)) = self.attrs.last()
            && !is_script_attribute(self.attr_bytes.get(from..to).unwrap_or_default())
        {
            self.attr_bytes.truncate(from);
            self.attrs.pop();
            self.dropped = true;
        }
    }
}

impl Emitter for Reader<'_> {
    type Token = Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start.clear();
        self.last_start
            .extend_from_slice(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {
        self.flush_chars();
    }

    fn emit_error(&mut self, _error: Error) {}

    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }

    fn emit_string(&mut self, c: &[u8]) {
        // Text the state does not read (scripts, style sheets, skipped elements) is not
        // copied: the state changes at tags only, and the buffer is flushed before each.
        if self.state.wants_text() {
            self.chars.extend_from_slice(c);
        }
    }

    fn init_start_tag(&mut self) {
        self.init_tag(false);
    }

    fn init_end_tag(&mut self) {
        self.init_tag(true);
    }

    fn init_comment(&mut self) {}

    fn emit_current_tag(&mut self) -> Option<Mode> {
        self.flush_chars();
        self.judge();
        if self.is_end_tag {
            self.state.end_tag(&self.name);
            return None;
        }
        let mode = self.state.start_tag(&Tag {
            name: &self.name,
            self_closing: self.self_closing,
            bytes: &self.attr_bytes,
            attrs: &self.attrs,
        });
        std::mem::swap(&mut self.last_start, &mut self.name);
        mode
    }

    fn emit_current_comment(&mut self) {}

    fn emit_current_doctype(&mut self) {}

    fn set_self_closing(&mut self) {
        self.self_closing = true;
    }

    fn set_force_quirks(&mut self) {}

    fn push_tag_name(&mut self, s: &[u8]) {
        self.name.extend_from_slice(s);
    }

    fn push_comment(&mut self, _s: &[u8]) {}

    fn push_doctype_name(&mut self, _s: &[u8]) {}

    fn init_doctype(&mut self) {}

    fn init_attribute(&mut self) {
        self.attributes += 1;
        if self.attributes > self.state.max_attributes {
            // Out of the tokenizer's nested calls before they exhaust the stack (see
            // `skim_html_opts`); not a panic: no hook runs, no message is printed.
            std::panic::resume_unwind(Box::new(TooManyAttributes));
        }
        self.judge();
        // The name is complete when the first attribute starts.
        self.keep_attrs = if self.is_end_tag {
            Keep::Nothing
        } else {
            self.state.attributes_of(&self.name)
        };
        self.dropped = false;
        if self.keep_attrs != Keep::Nothing {
            self.unjudged = self.keep_attrs == Keep::Scripted;
            let at = self.attr_bytes.len();
            self.attrs.push((at, at, at));
        }
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        if self.keep_attrs != Keep::Nothing && !self.dropped {
            self.attr_bytes.extend_from_slice(s);
            let at = self.attr_bytes.len();
            if let Some(attr) = self.attrs.last_mut() {
                attr.1 = at;
                attr.2 = at;
            }
        }
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        self.judge();
        if self.keep_attrs != Keep::Nothing && !self.dropped {
            self.attr_bytes.extend_from_slice(s);
            let at = self.attr_bytes.len();
            if let Some(attr) = self.attrs.last_mut() {
                attr.2 = at;
            }
        }
    }

    fn set_doctype_public_identifier(&mut self, _value: &[u8]) {}

    fn set_doctype_system_identifier(&mut self, _value: &[u8]) {}

    fn push_doctype_public_identifier(&mut self, _s: &[u8]) {}

    fn push_doctype_system_identifier(&mut self, _s: &[u8]) {}

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.is_end_tag && !self.last_start.is_empty() && self.last_start == self.name
    }
}
