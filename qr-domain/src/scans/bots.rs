//! Agents that are not people scanning a code (crawlers, link previewers, headless browsers, HTTP libraries and command-line clients), in one list with a real example of each.
//!
//! They are redirected like everyone, but their visits are not recorded as scans. The tokens
//! are matched, lower case, anywhere in the User-Agent; woothee's crawler category is added on
//! top of them (see [`crate::scans::scan::classify_user_agent`]).

/// One kind of agent: the lower-case token that identifies it, and a User-Agent it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotToken {
    /// Matched, lower case, anywhere in the User-Agent.
    pub token: &'static str,
    /// A User-Agent of this agent as it is sent (the tests check each one).
    pub example: &'static str,
}

const fn bot(token: &'static str, example: &'static str) -> BotToken {
    BotToken { token, example }
}

/// Every agent recognised as not a person, beyond woothee's crawler list.
pub const BOT_TOKENS: &[BotToken] = &[
    // Crawlers and search engines.
    bot(
        "bot",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    ),
    bot(
        "crawler",
        "Mozilla/5.0 (compatible; Yeti/1.1; +http://naver.me/spd) crawler",
    ),
    bot(
        "spider",
        "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)",
    ),
    bot(
        "slurp",
        "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
    ),
    // Chat and social link previewers: they fetch every shared short link.
    bot(
        "facebookexternalhit",
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
    ),
    bot("whatsapp", "WhatsApp/2.23.20.0"),
    bot(
        "skypeuripreview",
        "Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5",
    ),
    bot(
        "embedly",
        "Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)",
    ),
    // Headless browsers and audits.
    bot(
        "headlesschrome",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36",
    ),
    bot(
        "lighthouse",
        "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
    ),
    // HTTP libraries and command-line clients: scripts, not people.
    bot("curl/", "curl/8.4.0"),
    bot("wget/", "Wget/1.21.3"),
    bot("httpie/", "HTTPie/3.2.2"),
    bot("python-requests", "python-requests/2.31.0"),
    bot("python-urllib", "Python-urllib/3.11"),
    bot("python-httpx", "python-httpx/0.25.2"),
    bot("aiohttp", "Python/3.11 aiohttp/3.9.1"),
    bot(
        "node-fetch",
        "node-fetch/1.0 (+https://github.com/bitinn/node-fetch)",
    ),
    bot("undici", "undici"),
    bot("axios", "axios/1.6.2"),
    bot("got (", "got (https://github.com/sindresorhus/got)"),
    bot("java/", "Java/17.0.9"),
    bot(
        "apache-httpclient",
        "Apache-HttpClient/4.5.14 (Java/17.0.9)",
    ),
    bot("okhttp", "okhttp/4.12.0"),
    bot("go-http-client", "Go-http-client/1.1"),
    bot("libwww-perl", "libwww-perl/6.72"),
    bot("guzzlehttp", "GuzzleHttp/7"),
    bot("dart:io", "Dart/3.2 (dart:io)"),
    bot("postmanruntime", "PostmanRuntime/7.36.0"),
    bot("insomnia", "insomnia/2023.5.8"),
    bot(
        "windowspowershell",
        "Mozilla/5.0 (Windows NT 10.0; Microsoft Windows 10.0.22631; en-US) WindowsPowerShell/5.1.22621.2506",
    ),
];

/// Whether a lower-cased User-Agent carries one of the tokens.
pub(crate) fn is_listed(lower: &str) -> bool {
    BOT_TOKENS.iter().any(|b| lower.contains(b.token))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scans::scan::classify_user_agent;

    #[test]
    fn every_listed_agent_is_not_counted_and_its_example_names_its_token() {
        for entry in BOT_TOKENS {
            assert_eq!(entry.token, entry.token.to_ascii_lowercase(), "{entry:?}");
            assert!(
                entry.example.to_ascii_lowercase().contains(entry.token),
                "the example of {:?} must carry its token",
                entry.token
            );
            assert!(
                classify_user_agent(Some(entry.example)).is_bot,
                "{:?} is counted as a person",
                entry.example
            );
        }
    }

    #[test]
    fn people_on_phones_and_desktops_are_counted() {
        for person in [
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
            "Mozilla/5.0 (Linux; Android 12; CUBOT X50) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Mobile Safari/537.36",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
        ] {
            assert!(!classify_user_agent(Some(person)).is_bot, "{person}");
        }
    }
}
