"""Multilingual cue lists for the turn classifier (English, German, some French and Spanish).

Each list is a set of regular-expression fragments, matched case-insensitively against a prompt
whose quotes and spaces were normalised (:func:`skillopt_sleep.harvest.turns.normalise`). A
fragment marked ``^`` must open the prompt (or a sentence of it); the others may be anywhere.
Adding a language is adding fragments here; the rules in :mod:`.turns` stay the same.
"""

from __future__ import annotations

import re

POSITIVE_EMOJI = "👍👌🙏🎉❤♥💯🔥✅😍🥳✨🚀😀🙂😊😄😁👏💪🤩🥰⭐🌟✔🤗😎🙌💚💙🏆"
NEGATIVE_EMOJI = "👎❌😡😠🤦🙄😞😕💩⛔🚫😤🤬😩😒🤨"

# A prompt that opens like this is aimed at something new, whatever follows.
NEW_TOPIC = (
    r"new task|new topic|different topic|different question|another (?:thing|topic|task)"
    r"|something else|unrelated|moving on|let's (?:now )?(?:work on|move on|switch|turn to)"
    r"|neues thema|neue aufgabe|anderes thema|andere frage|etwas anderes|themawechsel"
    r"|nouvelle t[aâ]che|autre sujet|otra cosa|nuevo tema"
)
# Openers that dismiss something before a request ("No rush, but ..."): the rest decides.
DISMISSIVE_OPENER = (
    r"(?:(?:no|nope|nein|non),? )?(?:no rush|no hurry|no worries|no problem|no need to [^;:.!?]*"
    r"|never ?mind(?: that)?|no more [^;:.!?]*(?:today|for now)"
    r"|(?:no|nein),? (?:thanks|danke)(?:,? (?:instead|stattdessen))?"
    r"|don't worry about [^;:.!?]*|forget (?:that|it|about [^;:.!?]*)"
    r"|wait|warte|always wanted to (?:ask|know)|keine eile|kein stress|egal|vergiss (?:das|es)"
    r"|pas de souci|sin prisa)"
)

PRAISE_START = (
    r"thanks?|thank (?:you|u)|thx|ty|cheers|appreciate(?:d| it)?|great|perfect|nice|awesome"
    r"|excellent|good job|well done|good catch|good call|good work|well spotted|spot on|lgtm"
    r"|looks (?:good|great|fine)|exactly|correct|that's (?:right|correct|it|perfect|great)"
    r"|yes,? (?:that's|this is|exactly|perfect|right)|brilliant|love it|cool|sweet|amazing"
    r"|fantastic|wonderful|superb|yep|yup|jep|jawohl|that's the one|much better|way better"
    r"|beautiful|neat|nailed it|bravo"
    r"|danke|vielen dank|dankesch[oö]n|super|perfekt|genau|klasse|prima|toll|top|spitze"
    r"|mega|yes!|sehr (?:gut|sch[oö]n)|gut gemacht|wunderbar|passt|stimmt|richtig|sauber|l[aä]uft"
    r"|merci|parfait|g[ée]nial|tr[eè]s bien|bravo|gracias|perfecto|genial|muy bien|excelente"
    r"|obrigad[oa]|valeu|perfeito|[oó]timo|grazie|perfetto|ottimo"
    r"|tack|dzi[eę]kuj[eę]|dzi[eę]ki|[sś]wietnie|d[ií]ky|d[eě]kuju|skv[eě]l[eé]|v[yý]born[eě]"
    r"|te[sş]ekk[uü]r\w*|harika|m[uü]kemmel|спасибо|отлично|дякую|чудово"
    r"|bedankt|dank\s+je(?:wel)?|terima\s+kasih|mantap|c[aả]m\s+[oơ]n|tuy[eệ]t|धन्यवाद|बढ़िया"
    r"|ευχαριστώ|τέλεια|תודה|شكرا"
)
# Praise that may stand anywhere in a short prompt.
PRAISE_ANYWHERE = (
    r"did the trick|works like a charm|works (?:now|great|perfectly|fine)|that works"
    r"|lifesaver|life saver|good catch|well spotted|nice catch|thanks for (?:catching|spotting|fixing)"
    r"|exactly what i (?:needed|wanted)|nailed it|gut erkannt|genau (?:das|so)|that's it"
    r"|(?:this|that|it) (?:is|looks) (?:great|perfect|good|fine)|all green|thanks|danke|mega"
    r"|funktioniert (?:jetzt|wieder|perfekt)|l[aä]uft jetzt|passt so"
    r"|(?:reads|looks|is|sounds) (?:much |way |far |a lot )?better|(?:much|way|far) better"
    r"|te[sş]ekk[uü]r\w*|tack|dzi[eę]kuj[eę]|d[eě]kuju|спасибо"
    r"|\u3042\u308a\u304c\u3068\u3046|\u5b8c\u74a7|\u8c22\u8c22|\u5b8c\u7f8e|\uac10\uc0ac|\uace0\ub9c8\uc6cc"
)
# Words that turn praise into a correction ("Thanks, but ...").
CONTRAST = (
    r"but|however|though|although|except|only|still|yet|aber|allerdings|jedoch|nur|trotzdem"
    r"|leider|mais|pero|sin embargo|ale|ama|fakat|но|\u3067\u3082|\u4f46\u662f|\ud558\uc9c0\ub9cc"
)

# A correction: what the user says when the last attempt was wrong or must change.
CORRECTION_START = (
    r"no\b(?!-)|nope|nah|wrong|incorrect|not quite|not like that|not really|not exactly|close,? but"
    r"|almost|nearly|ugh|argh|meh|hmm+,? (?:no|the|it|that|this|you)|revert|undo|roll back"
    r"|reminder|again|same (?:mistake|error|problem|issue)|for the (?:last|third|second|\w+th) time"
    r"|i (?:already |have |'ve )?(?:said|told you|asked (?:for|you)|meant|wanted)"
    r"|you (?:forgot|missed|didn't|did not|broke|ignored|keep|still|used|renamed|removed|deleted"
    r"|changed|added|put|wrote|left|skipped|overwrote|misread|misunderstood|were supposed)"
    r"|don't forget|do not forget|remember to|stop (?:using|adding|doing|writing|putting|with|that|it"
    r"|\w+ing)|please (?:don't|do not|never|stop|always|keep|avoid)|never (?:use|do|add|put|write)"
    r"|avoid|always (?:use|run|put|write|add|keep|include|start|call|prefer|do|check|ask)"
    r"|(?:max(?:imum)?|m[aá]xim[oa]|au maximum|at most|no more than|pas plus de|no m[aá]s de|up to)"
    r" (?:\d+|{n})|(?:\d+|{n}) (?:\w+ )?max"
    r"|(?:au|im|in|en|dans le) (?:\w+[ -])?(?:format|formato)\b|just (?:the )?(?:raw |plain |bare )?"
    r"(?:json|yaml|toml|csv|code|diff|output|answer|list|numbers?|names?|commands?)\b"
    r"|{rule}"
    r"|less (?:chatty|verbose|text|words|talk)"
    r"|more (?:concise|brief)|shorter|too (?:long|short|verbose|wordy|much|many|complex|complicated)"
    r"|(?:way|far|much) too|be (?:brief|concise)|keep it (?:short|brief)"
    r"|why (?:is|are) there|why (?:did|do|does|would) (?:you|it)|where (?:is|are) the"
    r"|why (?:read|open|run|delete|remove|edit|change|touch|install|rewrite|overwrite|dump|print"
    r"|cat|grep|search|force|push|commit|reset|use)(?= (?:the|a|an|that|this|it|all|every)\b"
    r"| [`'\"/.~])|(?:run|do|call|start|launch|invoke|execute) (?:it|that|this|them) (?:as|like|via)"
    r"|what about (?![^?]*\b(?:too|as well|also)\b)|and the \w+\?"
    r"|nein|falsch|nicht (?:ganz|so|das|richtig|wirklich)|fast[.,!]|zu (?:lang|kurz|ausf[uü]hrlich|viel"
    r"|kompliziert|umst[aä]ndlich)|k[uü]rzer|knapper|wie (?:gesagt|besprochen)|schon wieder|erneut"
    r"|ich (?:hatte|habe) (?:doch |dir )?(?:gesagt|gebeten)|du hast|bitte (?:immer|nie|nicht|keine?|k[uü]nftig"
    r"|ab jetzt)|h[oö]chstens|maximal|sprich mich|duz|siez|vergiss nicht|denk(?:e)? (?:bitte )?(?:daran|dran)"
    r"|non\b|trop|tu as oubli[ée]|pas (?:[cç]a|comme [cç]a)|toujours|jamais|demasiado|olvidaste|siempre"
)
CORRECTION_ANYWHERE = (
    r"that's (?:wrong|not (?:what|right|it))|not what i (?:asked|wanted|meant|said)"
    r"|you should have|you forgot|you missed|you didn't|you did not|you keep|you again"
    r"|still (?:wrong|broken|fail|fails|failing|crash|crashes|not|doesn't|does not|missing|there|too)"
    r"|(?:doesn't|does not|didn't|did not) (?:work|compile|run|pass|build)"
    r"|(?:this|it|that) (?:breaks|broke|crashes|fails)|is (?:broken|wrong|missing)"
    r"|\bwrong\b|incorrect|again with|yet again|like i (?:asked|said)|as i (?:asked|said)"
    r"|i've told you|told you (?:\w+ )?(?:times|before|already)|from now on|going forward|in (?:the )?future"
    r"|next time|instead of|rather than|use \S+(?: \S+)? instead|, not\b|\bnot \S+ but\b"
    r"|(?:the|this|it|that|your) [^.?!]{0,60}\b(?:should|must|needs? to|has to|ought to)\b"
    r"|is missing|are missing|doesn't (?:have|include)|forgot|vergessen|fehlt|fehlen"
    r"|immer noch|noch immer|schon wieder|falsch|statt|anstatt|anstelle|k[uü]nftig|ab jetzt"
    r"|in zukunft|von nun an|n[aä]chstes mal|schlagen? [^.?!]*fehl|funktioniert (?:immer noch )?nicht"
    r"|geht (?:immer noch )?nicht|kaputt|zu (?:lang|ausf[uü]hrlich|viel)\b|trop (?:long|verbeux)"
    r"|oubli[ée]|à l'avenir|demasiado largo|olvidaste|shorter|less chatty|k[uü]rzer|knapper"
    r"|not what i|nicht (?:das|so),? was ich|(?<=,) not (?!only|just|sure|yet)"
    r"|call me|address me|don't call me|sprich mich|nenn mich|duz|siez"
    r"|less (?:wordy|verbose|chatty)|misspel+ed|typo|(?<=,) nicht (?!nur|so)|could you not|can you not"
    r"|warum hast du|wieso hast du|why did you (?!choose|pick)|^ok(?:ay)?,? but"
    r"|(?:this|that) is the (?:second|third|fourth|fifth|\w+th|\d+\w*) time|go back to|was better"
    r"|i don't want|i do not want|drop the|sorry,? but|(?:is|are)n't valid|not valid|overcomplicat"
    r"|over-?engineer|where(?:'s| is| are) (?:the|my|your)|wo (?:ist|sind) (?:denn )?(?:die|der|das|mein)"
    r"|viel zu|way too|far too|you shouldn't|you should not|du sollst (?:doch )?nicht|das passt (?:so )?nicht"
    r"|never (?:a|an)\b|(?<=,) (?:never|nie|niemals|jamais|nunca)\b|(?:must|should|needs? to|has to) also be|muss auch"
    r"|on purpose|absichtlich|expr[eè]s|a prop[oó]sito|leave out|lass [^.?!]{1,40} weg"
    r"|\b(?:skip|exclude|ignore|[uü]berspring\w*|ignorier\w*|ignore[rz]?|omit[es]?)\s+`?[\w.-]*/"
    r"|\bonly (?:our|my|the) `?[\w.-]+/|\bnur (?:unser\w*|mein\w*|das|den|die) `?[\w.-]+/"
    r"|keep it (?:(?:under|below|within|to) \d+|shorter|brief|short)|(?:under|below|fewer than|less than"
    r"|unter|weniger als) \d+ (?:words|characters|chars|lines|sentences|w[oö]rtern?|zeichen|zeilen)"
)
# A follow-up: the next step of the same request, or a question about the answer.
FOLLOW_UP_START = (
    r"now|next|then|and (?:then|now|also)|ok(?:ay)?,? (?:then|now|so|next)|also|one more thing"
    r"|continue|go on|go ahead|keep going|proceed|carry on|show me|run it|do the same|same for"
    r"|let's also|can you also|could you also|please also|what does (?:the|this|that|it)"
    r"|can you explain|could you explain|explain why|why did you (?:choose|pick|use)"
    r"|jetzt (?:noch|bitte)?|nun|dann|und dann|weiter|mach weiter|au(?:ß|ss)erdem|noch|auch"
    r"|kannst du (?:das|es|sie|ihn) (?:noch|auch|bitte)"
    r"|continue[zr]?|sigue|contin[uú]a"
)
FOLLOW_UP_ANYWHERE = (
    r"(?:on|to|for|with|into|from|about) (?:it|that|them|es|das|ihm|ihr) now\b|next up"
    r"|^und (?:jetzt|nun|noch)\b|^zeig(?:e)? (?:mir )?(?:mal |bitte )?(?:den|die|das)\b"
    r"|(?:for|to) (?:it|that|this|them) (?:as well|too)|as well\?|them too|auch noch|the same for"
    r"|do the same|same thing for|das gleiche|dasselbe|auch f[uü]r"
    r"|\b(?:commit|push|run|test|deploy|merge|check|try|open|rename|format) (?:it|that|this|them|es|das)\b"
    r"|what (?:does|do|did) (?:the|this|that|these|those|it)\b|was (?:die|der|das|es) [^.?!]{0,30}"
    r"(?:macht|tut|bedeutet)|que (?:fait|hace) (?:la|le|el)"
)
ACKNOWLEDGE = (
    r"ok(?:ay)?|k|alright|sure|fine|got it|i see|understood|yes|yep|ja|okay|d'accord|vale|si|oui"
)

# A prompt that opens like this is a request in its own right.
REQUEST_START = (
    r"write|add|create|build|implement|refactor|explain|find|translate|set ?up|generate|bump"
    r"|make|fix|update|remove|delete|rename|move|install|configure|migrate|document|review"
    r"|investigate|look into|check|debug|optimi[sz]e|list|summari[sz]e|draft|design|deploy|release"
    r"|port|convert|split|merge|tag|stop|start|open|close|clean|run|test|help|how|what|why|where"
    r"|when|which|who|is|are|does|do|can you|could you|would you|please|let's|i (?:need|want)"
    r"|(?:schreib|erstell|f[uü]g|bau|implementier|erkl[aä]r|find|[uü]bersetz|richt|mach|pr[uü]f"
    r"|[aä]nder|entfern|l[oö]sch|aktualisier|teste?|dokumentier|konfigurier|installier)(?:e|en)?"
    r"|wie|was|warum"
    r"|wo|kannst du|k[oö]nntest du|bitte|ich (?:brauche|m[oö]chte)|lass uns"
    r"|[ée]cris|ajoute|cr[ée]e|peux-tu|escribe|a[nñ]ade|crea|puedes"
)


_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|ein(?:e|en)?|zwei|drei|vier|f[uü]nf|sechs"
    r"|sieben|acht|neun|zehn|un|une|deux|trois|uno|dos|tres"
)
# A rule about the answer, said of it in the third person: "Entries belong in ...", "Each finding
# must start with ...", "Le message doit commencer par ...", "Der PR-Text braucht immer ...". Not
# of the user ("I need", "wir müssen"), and not a question ("What should I ...").
RULE_STATEMENT = (
    r"(?!(?:i|we|ich|wir|je|nous|on|yo|what|why|how|where|when|which|who|should|can|could|would"
    r"|do|does|is|are|was|wie|warum|wo|que|qu'|qué|c[oó]mo|pourquoi|comment|let's|please)\b)"
    r"(?:[\w`'/.-]+ ){1,4}(?:must|always|never|has to|have to|needs? (?:to|an?|the)|belongs?"
    r"|go(?:es)? (?:in|under|into)|muss|m[uü]ssen|braucht|brauchen|geh[oö]r(?:t|en)|doit|doivent"
    r"|debe|deben|tiene que|tienen que|va(?:n)? (?:en|bajo))\b"
)
CORRECTION_START = CORRECTION_START.replace("{n}", _NUMBER_WORDS).replace("{rule}", RULE_STATEMENT)


def compile_start(fragments: str) -> re.Pattern[str]:
    """``fragments`` at the start of the text, as whole words."""
    return re.compile(rf"^(?:{fragments})(?![\w])", re.IGNORECASE)


def compile_anywhere(fragments: str) -> re.Pattern[str]:
    """``fragments`` anywhere in the text, starting at a word boundary."""
    return re.compile(rf"(?<![\w])(?:{fragments})", re.IGNORECASE)
