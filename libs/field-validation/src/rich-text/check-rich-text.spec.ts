import { checkRichText } from './check-rich-text';
import { isAllowedHref } from './link-href';

const accepted = (html: string) => checkRichText(html).ok;

describe('checkRichText', () => {
  it('accepts every allow-listed element', () => {
    const html = [
      '<h1>Title</h1><h2>a</h2><h3>b</h3><h4>c</h4><h5>d</h5><h6>e</h6>',
      '<p>Some <strong>bold</strong>, <em>italic</em>, <u>under</u> and <s>struck</s> text.<br>Next line<br/></p>',
      '<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>',
      '<blockquote><p>Quoted</p></blockquote>',
      '<pre><code>const x = 1 &lt; 2 &amp;&amp; y;</code></pre>',
      '<p><a href="https://example.com/path?q=1&amp;r=2#top">link</a> <a href="mailto:team@example.com">mail</a></p>',
    ].join('\n');
    expect(checkRichText(html)).toEqual({ ok: true });
  });

  it('accepts plain text, entities and upper-case tag names', () => {
    expect(accepted('Just text &amp; an entity &gt; done')).toBe(true);
    expect(accepted('<P>Upper <STRONG>case</STRONG></P>')).toBe(true);
    expect(accepted('')).toBe(true);
  });

  it.each([
    ['a script element', '<p>hi</p><script>alert(1)</script>'],
    ['a script element in upper case', '<SCRIPT>alert(1)</SCRIPT>'],
    ['an event handler attribute', '<p onclick="alert(1)">x</p>'],
    ['an event handler on a link', '<a href="https://example.com" onmouseover="alert(1)">x</a>'],
    ['a style attribute', '<p style="color: red">x</p>'],
    ['a class attribute', '<p class="x">x</p>'],
    ['an image', '<img src="https://example.com/x.png">'],
    ['an image with onerror', '<img src=x onerror=alert(1)>'],
    ['an iframe', '<iframe src="https://example.com"></iframe>'],
    ['svg', '<svg><script>alert(1)</script></svg>'],
    ['a style element', '<style>p { color: red }</style>'],
    ['a div', '<div>x</div>'],
    ['a javascript: href', '<a href="javascript:alert(1)">x</a>'],
    ['a mixed-case javascript: href', '<a href="JaVaScRiPt:alert(1)">x</a>'],
    ['an entity-encoded javascript: href', '<a href="java&#x73;cript:alert(1)">x</a>'],
    ['a javascript: href with a tab', '<a href="java\tscript:alert(1)">x</a>'],
    ['a data: href', '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>'],
    ['a vbscript: href', '<a href="vbscript:msgbox(1)">x</a>'],
    ['a relative href', '<a href="/admin">x</a>'],
    ['an empty href', '<a href="">x</a>'],
    ['a repeated href', '<a href="https://example.com" href="javascript:alert(1)">x</a>'],
    ['a comment', '<p>a</p><!-- secret -->'],
    ['a conditional comment', '<!--[if IE]><script>alert(1)</script><![endif]-->'],
    ['a doctype', '<!DOCTYPE html><p>x</p>'],
    ['CDATA', '<![CDATA[x]]>'],
    ['a literal <', '<p>1 < 2</p>'],
    ['a stray end tag', '<p>x</p></div>'],
    ['a malformed end tag', '<p>x</ p>'],
    ['a split tag name', '<scr<script>ipt>alert(1)</script>'],
    ['an unterminated tag', '<p>x</p><a href="https://example.com"'],
    ['a NUL character', '<p>a\u0000b</p>'],
  ])('rejects %s', (_description, html) => {
    const result = checkRichText(html);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
  });

  it('names the offending element or attribute', () => {
    expect(checkRichText('<img src="x">')).toEqual({ ok: false, reason: 'the <img> element is not allowed.' });
    expect(checkRichText('<p style="x">a</p>')).toEqual({ ok: false, reason: 'the "style" attribute is not allowed on <p>.' });
    expect(checkRichText('<!-- x -->')).toEqual({ ok: false, reason: 'HTML comments are not allowed.' });
  });
});

describe('isAllowedHref', () => {
  it('allows http, https and mailto only', () => {
    expect(isAllowedHref('https://example.com')).toBe(true);
    expect(isAllowedHref('HTTP://example.com/x')).toBe(true);
    expect(isAllowedHref('mailto:someone@example.com')).toBe(true);
    for (const href of ['mailto:', 'ftp://example.com', 'javascript:alert(1)', 'data:,x', '#top', '//example.com', ' https://example.com', 'https://exa mple.com']) {
      expect(isAllowedHref(href)).toBe(false);
    }
  });
});
