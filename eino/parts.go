package eino

import (
	"encoding/json"

	"github.com/cloudwego/eino/schema"

	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/message"
)

// Multi-content parts: eino input, output and legacy parts to format-2 parts and back.

func strPtr(s string) *string { return &s }

// moveCommon moves the URL or base64 data of c into a file part and clears it
// in c (keeping the pointer, so which one was set is remembered).
func moveCommon(c *schema.MessagePartCommon, kind string) (message.Part, string) {
	p := message.Part{Type: message.PartFile, MimeType: c.MIMEType}
	if p.MimeType == "" {
		p.MimeType = defaultMime(kind)
	}
	switch {
	case c.URL != nil:
		p.Data = *c.URL
		c.URL = strPtr("")
		return p, "url"
	case c.Base64Data != nil:
		p.Data = *c.Base64Data
		c.Base64Data = strPtr("")
		return p, "base64"
	}
	return p, ""
}

func restoreCommon(c *schema.MessagePartCommon, data, field string) {
	switch field {
	case "url":
		c.URL = strPtr(data)
	case "base64":
		c.Base64Data = strPtr(data)
	}
}

func defaultMime(kind string) string {
	switch kind {
	case "image":
		return "image/*"
	case "audio":
		return "audio/*"
	case "video":
		return "video/*"
	}
	return "application/octet-stream"
}

func entry(f string, part any, data string, inline bool) (layoutEntry, error) {
	b, err := json.Marshal(part)
	if err != nil {
		return layoutEntry{}, err
	}
	return layoutEntry{F: f, Part: b, Data: data, Inline: inline}, nil
}

func inputPartToCore(p schema.MessageInputPart) (*message.Part, layoutEntry, error) {
	sk := p
	sk.Extra = normalizeMap(p.Extra)
	var part *message.Part
	data := ""
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		t := core.TextPart(p.Text)
		part, sk.Text = &t, ""
	case p.Type == schema.ChatMessagePartTypeImageURL && p.Image != nil:
		img := *p.Image // moveCommon replaces pointers, never writes through them
		fp, d := moveCommon(&img.MessagePartCommon, "image")
		part, sk.Image, data = &fp, &img, d
	case p.Type == schema.ChatMessagePartTypeAudioURL && p.Audio != nil:
		a := *p.Audio
		fp, d := moveCommon(&a.MessagePartCommon, "audio")
		part, sk.Audio, data = &fp, &a, d
	case p.Type == schema.ChatMessagePartTypeVideoURL && p.Video != nil:
		v := *p.Video
		fp, d := moveCommon(&v.MessagePartCommon, "video")
		part, sk.Video, data = &fp, &v, d
	case p.Type == schema.ChatMessagePartTypeFileURL && p.File != nil:
		f := *p.File
		fp, d := moveCommon(&f.MessagePartCommon, "file")
		fp.Filename = f.Name
		part, sk.File, data = &fp, &f, d
	}
	e, err := entry("input", sk, data, part == nil)
	return part, e, err
}

func inputPartFromCore(e layoutEntry, cp *message.Part) (schema.MessageInputPart, error) {
	var p schema.MessageInputPart
	if err := json.Unmarshal(e.Part, &p); err != nil {
		return p, err
	}
	if cp == nil {
		return p, nil
	}
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		p.Text = cp.Text
	case p.Image != nil && p.Type == schema.ChatMessagePartTypeImageURL:
		restoreCommon(&p.Image.MessagePartCommon, cp.Data, e.Data)
	case p.Audio != nil && p.Type == schema.ChatMessagePartTypeAudioURL:
		restoreCommon(&p.Audio.MessagePartCommon, cp.Data, e.Data)
	case p.Video != nil && p.Type == schema.ChatMessagePartTypeVideoURL:
		restoreCommon(&p.Video.MessagePartCommon, cp.Data, e.Data)
	case p.File != nil && p.Type == schema.ChatMessagePartTypeFileURL:
		restoreCommon(&p.File.MessagePartCommon, cp.Data, e.Data)
	}
	return p, nil
}

func outputPartToCore(p schema.MessageOutputPart) (*message.Part, layoutEntry, error) {
	sk := p
	sk.StreamingMeta = nil
	sk.Extra = normalizeMap(p.Extra)
	var part *message.Part
	data := ""
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		t := core.TextPart(p.Text)
		part, sk.Text = &t, ""
	case p.Type == schema.ChatMessagePartTypeReasoning && p.Reasoning != nil:
		r := message.Part{Type: message.PartReasoning, Reasoning: p.Reasoning.Text}
		if p.Reasoning.Signature != "" {
			r.Details = []message.ReasoningDetail{{Type: "text", Text: p.Reasoning.Text, Signature: p.Reasoning.Signature}}
		}
		part, sk.Reasoning = &r, &schema.MessageOutputReasoning{}
	case p.Type == schema.ChatMessagePartTypeImageURL && p.Image != nil:
		img := *p.Image
		fp, d := moveCommon(&img.MessagePartCommon, "image")
		part, sk.Image, data = &fp, &img, d
	case p.Type == schema.ChatMessagePartTypeAudioURL && p.Audio != nil:
		a := *p.Audio
		fp, d := moveCommon(&a.MessagePartCommon, "audio")
		part, sk.Audio, data = &fp, &a, d
	case p.Type == schema.ChatMessagePartTypeVideoURL && p.Video != nil:
		v := *p.Video
		fp, d := moveCommon(&v.MessagePartCommon, "video")
		part, sk.Video, data = &fp, &v, d
	}
	e, err := entry("output", sk, data, part == nil)
	return part, e, err
}

func outputPartFromCore(e layoutEntry, cp *message.Part) (schema.MessageOutputPart, error) {
	var p schema.MessageOutputPart
	if err := json.Unmarshal(e.Part, &p); err != nil {
		return p, err
	}
	if cp == nil {
		return p, nil
	}
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		p.Text = cp.Text
	case p.Reasoning != nil && p.Type == schema.ChatMessagePartTypeReasoning:
		p.Reasoning.Text = cp.Reasoning
		if len(cp.Details) > 0 {
			p.Reasoning.Signature = cp.Details[0].Signature
		}
	case p.Image != nil && p.Type == schema.ChatMessagePartTypeImageURL:
		restoreCommon(&p.Image.MessagePartCommon, cp.Data, e.Data)
	case p.Audio != nil && p.Type == schema.ChatMessagePartTypeAudioURL:
		restoreCommon(&p.Audio.MessagePartCommon, cp.Data, e.Data)
	case p.Video != nil && p.Type == schema.ChatMessagePartTypeVideoURL:
		restoreCommon(&p.Video.MessagePartCommon, cp.Data, e.Data)
	}
	return p, nil
}

// legacyURL moves the URL (or, when empty, the URI) of a deprecated part.
func legacyURL(url, uri *string, mime, kind string) (message.Part, string) {
	p := message.Part{Type: message.PartFile, MimeType: mime}
	if p.MimeType == "" {
		p.MimeType = defaultMime(kind)
	}
	switch {
	case *url != "":
		p.Data, *url = *url, ""
		return p, "url"
	case *uri != "":
		p.Data, *uri = *uri, ""
		return p, "uri"
	}
	return p, ""
}

func restoreLegacy(url, uri *string, data, field string) {
	switch field {
	case "url":
		*url = data
	case "uri":
		*uri = data
	}
}

func legacyPartToCore(p schema.ChatMessagePart) (*message.Part, layoutEntry, error) {
	sk := p
	var part *message.Part
	data := ""
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		t := core.TextPart(p.Text)
		part, sk.Text = &t, ""
	case p.Type == schema.ChatMessagePartTypeImageURL && p.ImageURL != nil:
		u := *p.ImageURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "image")
		part, sk.ImageURL, data = &fp, &u, d
	case p.Type == schema.ChatMessagePartTypeAudioURL && p.AudioURL != nil:
		u := *p.AudioURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "audio")
		part, sk.AudioURL, data = &fp, &u, d
	case p.Type == schema.ChatMessagePartTypeVideoURL && p.VideoURL != nil:
		u := *p.VideoURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "video")
		part, sk.VideoURL, data = &fp, &u, d
	case p.Type == schema.ChatMessagePartTypeFileURL && p.FileURL != nil:
		u := *p.FileURL
		u.Extra = normalizeMap(u.Extra)
		fp, d := legacyURL(&u.URL, &u.URI, u.MIMEType, "file")
		fp.Filename = u.Name
		part, sk.FileURL, data = &fp, &u, d
	}
	e, err := entry("multi", sk, data, part == nil)
	return part, e, err
}

func legacyPartFromCore(e layoutEntry, cp *message.Part) (schema.ChatMessagePart, error) {
	var p schema.ChatMessagePart
	if err := json.Unmarshal(e.Part, &p); err != nil {
		return p, err
	}
	if cp == nil {
		return p, nil
	}
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		p.Text = cp.Text
	case p.ImageURL != nil && p.Type == schema.ChatMessagePartTypeImageURL:
		restoreLegacy(&p.ImageURL.URL, &p.ImageURL.URI, cp.Data, e.Data)
	case p.AudioURL != nil && p.Type == schema.ChatMessagePartTypeAudioURL:
		restoreLegacy(&p.AudioURL.URL, &p.AudioURL.URI, cp.Data, e.Data)
	case p.VideoURL != nil && p.Type == schema.ChatMessagePartTypeVideoURL:
		restoreLegacy(&p.VideoURL.URL, &p.VideoURL.URI, cp.Data, e.Data)
	case p.FileURL != nil && p.Type == schema.ChatMessagePartTypeFileURL:
		restoreLegacy(&p.FileURL.URL, &p.FileURL.URI, cp.Data, e.Data)
	}
	return p, nil
}
