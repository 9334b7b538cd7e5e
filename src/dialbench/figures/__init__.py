"""The chatbots' figures and how sure they are: judgments as one frame, each chatbot figure
(an issue rate, a mean score, a pass or win rate) per language with its interval over the seeds
it grew from, paired differences between chatbots on the seeds they share, the regression gate,
and the number of seeds a difference needs."""
