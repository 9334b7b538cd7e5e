"""Text in a judged turn that addresses its judge (issue #52): instructions to the evaluator,
forged verdicts, role tags and chat-template tokens, forged transcript lines, fake ends of the
dialogue and hidden markup, in any of the seven languages, found by patterns kept as data
(`patterns.yaml`) and recorded on the judgments of the turn (`Judgment.injection_flags`)."""
