/**
 * The curated lexicon of the local moderation classifier: English words and phrases with the evidence (a weight
 * on the logit scale) each adds to a category. Besides the nine categories there are three helper features that
 * only count in combination: `group` (a group protected from discrimination) with `hostile` (hostility) nearby is
 * hate; `advice` (a request for advice) raises health, financial and law, which are about tailored advice rather
 * than mentions of the topic. `NEUTRAL` phrases are harmless idioms whose words must not count ("kill the process").
 *
 * Phrases are matched on word stems (see text.ts), longest first, so "kill myself" is self-harm and not violence.
 */
import type { ModerationCategory } from './types.js';

export type Feature = ModerationCategory | 'group' | 'hostile' | 'advice';

type Terms = Record<string, number>;

const sexual: Terms = {
  porn: 4.5, porno: 4.5, pornography: 4.5, pornographic: 4.5, xxx: 4.5, nsfw: 4, nude: 3.5, nudes: 4, naked: 3,
  sex: 2.5, 'have sex': 4.5, 'having sex': 4.5, 'sex with': 4, sexual: 2, sexy: 2.5, horny: 4.5, erotic: 4,
  orgasm: 4.5, blowjob: 5.5, 'oral sex': 5, masturbate: 5, masturbation: 5, fetish: 3.5, threesome: 4.5,
  'sexual services': 5, 'escort service': 4.5, hookup: 2.5, onlyfans: 3, 'strip club': 3, stripper: 3, genitals: 3.5,
  penis: 3, vagina: 3, boobs: 4.5, tits: 4, dick: 3, pussy: 3.5, cock: 2.5, sext: 4.5, sexting: 4.5,
  'make love': 3.5, lingerie: 2.5, explicit: 2, 'send nudes': 5.5, 'send me pics': 3, aroused: 4, seduce: 2.5,
  'sex education': -4, 'sexual health': -3, 'sex ed': -4,
};

const hateAndDiscrimination: Terms = {
  'master race': 5.5, 'inferior race': 5.5, 'racial purity': 5, 'white power': 5, 'white supremacy': 3,
  'ethnic cleansing': 3, subhuman: 3.5, 'go back to your country': 5.5, 'go back where you came from': 5.5,
  'race traitor': 5, 'sieg heil': 5, 'heil hitler': 5.5,
};

/** Groups protected from discrimination (by religion, origin, colour, gender, orientation, disability). */
const group: Terms = {
  jews: 1, jewish: 1, muslims: 1, muslim: 1, islam: 1, christians: 1, hindus: 1, sikhs: 1, blacks: 1, 'black people': 1,
  whites: 1, 'white people': 1, asians: 1, 'asian people': 1, arabs: 1, africans: 1, mexicans: 1, latinos: 1,
  'chinese people': 1, indians: 1, immigrants: 1, immigrant: 1, migrants: 1, refugees: 1, foreigners: 1, gypsies: 1,
  roma: 1, gays: 1, 'gay people': 1, homosexuals: 1, lesbians: 1, 'trans people': 1, transgender: 1,
  women: 1, females: 1, 'disabled people': 1, disabled: 1, 'people of color': 1,
};

/** Hostility that is hate when aimed at a group (alone: "I hate Mondays" is fine). */
const hostile: Terms = {
  hate: 5, despise: 5, vermin: 6, parasites: 6, cockroaches: 6, rats: 4, animals: 4, subhuman: 6, inferior: 5.5,
  disgusting: 5, filthy: 5, 'should be deported': 6, 'should be banned': 5.5, 'should be exterminated': 7,
  exterminate: 6, 'wiped out': 6, 'get rid of': 5, 'dont belong': 5.5, 'do not belong': 5.5, 'are ruining': 5,
  ruin: 4.5, 'cant be trusted': 5.5, 'cannot be trusted': 5.5, 'are all criminals': 6, 'are criminals': 5.5,
  'are stupid': 5, 'are a disease': 6, 'are a plague': 6, 'should not be allowed': 5, 'not human': 6,
  'are lazy': 5, 'are dirty': 5.5, 'deserve to die': 6,
};

const violenceAndThreats: Terms = {
  kill: 2.5, killing: 2.5, 'kill you': 5.5, 'kill him': 5, 'kill her': 5, 'kill them': 5, 'kill everyone': 5.5,
  'i will kill': 5.5, 'going to kill': 5, 'gonna kill': 5, murder: 3, 'murder you': 5.5, 'hurt you': 4.5,
  'i will hurt': 5, 'beat you up': 5, 'beat him up': 5, 'beat her up': 5, 'beat them up': 5, 'break your legs': 5.5,
  'break your neck': 5.5, 'shoot you': 5.5, 'shoot him': 5, 'shoot her': 5, 'shoot them': 5, 'shoot up': 4.5,
  'gun down': 4.5, stab: 3.5, 'stab you': 5.5, 'stab him': 5, 'stab her': 5, strangle: 4.5, torture: 3.5,
  slaughter: 3.5, massacre: 3.5, behead: 5, decapitate: 5, bloodbath: 4, 'burn your house': 5.5,
  'burn down your': 5, 'you will die': 4.5, 'you will pay': 3, 'watch your back': 4.5, 'i know where you live': 5.5,
  punch: 2.5, 'punch you': 4.5, 'punch him': 4.5, 'smash your face': 5.5, 'slit your throat': 6, assault: 3,
  rape: 4.5, attack: 1.5, hurt: 1.5, 'blow up': 2.5, 'ethnic cleansing': 2.5, 'deserve to die': 2,
};

const dangerousAndCriminal: Terms = {
  bomb: 2.5, 'make a bomb': 5.5, 'build a bomb': 5.5, 'pipe bomb': 5.5, explosive: 2.5, explosives: 3,
  'homemade explosive': 5.5, detonator: 3.5, 'cook meth': 5.5, meth: 3, methamphetamine: 3.5, cocaine: 3, heroin: 3,
  fentanyl: 3, 'buy drugs': 4.5, 'sell drugs': 4.5, 'drug dealer': 3, 'hack into': 4.5, hack: 2, steal: 3,
  stolen: 2.5, shoplift: 4.5, shoplifting: 4.5, 'rob a bank': 5.5, rob: 3, burglary: 3, 'break into': 3.5,
  'launder money': 5.5, 'money laundering': 4.5, counterfeit: 4, 'fake passport': 5, 'fake id': 4.5, smuggle: 4,
  'without getting caught': 4, 'without being caught': 4, untraceable: 3, ransomware: 4, phishing: 3.5,
  'credit card fraud': 5, 'identity theft': 4, 'tax evasion': 4, 'evade taxes': 4.5, 'pick a lock': 3.5,
  hotwire: 4.5, 'bypass the alarm': 4, poison: 3, 'nerve agent': 5, sarin: 4.5, ricin: 4.5, anthrax: 4,
  weapon: 1.5, illegal: 1.5, 'dark web': 3, bribe: 3.5, blackmail: 4, extort: 4, scam: 3, ddos: 4, 'blow up': 2.5,
  'stolen credit card': 5.5, 'credit card numbers': 2, 'ghost gun': 4.5, '3d printed gun': 4.5,
};

const selfharm: Terms = {
  'kill myself': 6.5, 'killing myself': 6.5, 'end my life': 6.5, 'take my own life': 6.5, suicide: 4,
  suicidal: 4.5, 'commit suicide': 5.5, 'want to die': 5.5, 'wanna die': 5.5, 'wish i was dead': 6,
  'wish i were dead': 6, 'dont want to live': 6.5, 'do not want to live': 6.5,
  'no reason to live': 6, 'not worth living': 5.5, 'cut myself': 6, 'cutting myself': 6, 'hurt myself': 5.5,
  'harm myself': 5.5, 'self harm': 4.5, overdose: 3, 'slit my wrists': 6.5, 'starve myself': 6,
  'make myself throw up': 5, 'make myself vomit': 5, purge: 1.5, 'pro ana': 4.5, thinspo: 4.5,
  'jump off a bridge': 4.5, 'hang myself': 6.5, 'better off dead': 5.5, 'better off without me': 5.5,
  'end it all': 5, 'suicide prevention': -1.5,
};

const health: Terms = {
  symptom: 2, symptoms: 2, diagnosis: 2, diagnose: 2, medication: 2, medicine: 1.5, dosage: 3, dose: 2.5, mg: 2,
  milligrams: 2, prescription: 2, prescribe: 2, doctor: 1, pain: 1.5, fever: 2, infection: 2, disease: 1.5,
  cancer: 2, tumor: 2, diabetes: 2, 'blood pressure': 2.5, treatment: 1.5, treat: 1, antibiotic: 2.5,
  antibiotics: 2.5, ibuprofen: 2.5, paracetamol: 2.5, acetaminophen: 2.5, aspirin: 2, insulin: 2.5, pregnant: 2,
  pregnancy: 2, rash: 2, headache: 2, migraine: 2, cough: 1.5, 'sore throat': 2, 'chest pain': 3, lump: 1.5,
  allergy: 1.5, allergic: 1.5, asthma: 2, inhaler: 2, depression: 1.5, antidepressant: 2.5, antidepressants: 2.5,
  'side effects': 2.5, surgery: 1.5, chemotherapy: 2, 'heart attack': 2, 'panic attack': 1.5, vaccine: 1.5,
  supplement: 1.5, supplements: 1.5, 'blood test': 2, cholesterol: 2,
};

const financial: Terms = {
  invest: 2, investing: 2, investment: 2, stock: 2, stocks: 2, shares: 1, portfolio: 2, crypto: 2, bitcoin: 2,
  ethereum: 2, retirement: 2, pension: 2, '401k': 2.5, ira: 2, roth: 2, mortgage: 2, loan: 1.5, debt: 1.5,
  tax: 1.5, taxes: 1.5, savings: 1.5, dividend: 2, etf: 2, etfs: 2, 'index fund': 2.5, 'index funds': 2.5,
  'interest rate': 2, 'credit score': 2, refinance: 2, bonds: 1.5, forex: 2, trading: 1.5, 'buy or sell': 2,
  'financial advice': 3, 'financial advisor': 2, budget: 1, inheritance: 1.5, 'capital gains': 2.5,
  'net worth': 1.5, annuity: 2, 'emergency fund': 2, 'stock market': 0.5,
};

const law: Terms = {
  lawyer: 2, attorney: 2, sue: 2.5, lawsuit: 2.5, court: 1.5, judge: 1, legal: 1.5, legally: 2, contract: 1.5,
  custody: 2.5, divorce: 2, alimony: 2.5, tenant: 2, landlord: 2, evict: 2.5, eviction: 2.5, copyright: 2,
  trademark: 2, patent: 1.5, visa: 1.5, immigration: 1.5, 'small claims': 2.5, 'my rights': 2, 'legal advice': 3,
  'breach of contract': 3, probate: 2.5, 'plead guilty': 3, dui: 2.5, arrested: 1.5, 'parking ticket': 1.5,
  'wrongfully fired': 2.5, 'wrongful termination': 3, liable: 2, liability: 1.5, settlement: 1.5, nda: 2,
  'non compete': 2.5, 'is it legal': 3, 'press charges': 3, 'last will': 2, 'power of attorney': 3,
};

const pii: Terms = {
  'social security number': 4.5, ssn: 3, 'passport number': 4.5, 'home address': 3.5, 'date of birth': 3,
  'my address is': 4.5, 'phone number': 2, 'credit card number': 4, 'bank account number': 4, 'my password is': 5,
  password: 1.5, 'full name and address': 4.5, 'where does she live': 4, 'where does he live': 4,
  'find her address': 4.5, 'find his address': 4.5, 'his address': 3, 'her address': 3, 'license plate': 2.5,
  'driver license number': 4.5, 'drivers license number': 4.5, 'mothers maiden name': 4.5, 'born on': 2,
  'my name is': 1, 'personal information': 2, 'home phone': 3,
};

/** Requests for advice ("should I…", "can my landlord…"): tailored advice is what health, financial and law are about. */
const advice: Terms = {
  'should i': 1, 'should we': 1, 'should my': 1, 'what should': 1, 'can i': 1, 'can my': 1, 'can they': 1,
  'can he': 1, 'can she': 1, 'is it safe': 1, 'how much': 1, 'how many': 1, 'what dose': 1, recommend: 1, advice: 1,
  advise: 1, 'do i need': 1, 'what can i do': 1, 'what do i do': 1, 'is it normal': 1, 'do i have': 1,
  'could it be': 1, 'what could': 1, 'is this serious': 1, 'how do i': 1, 'best way to': 1, 'help me decide': 1,
  'am i allowed': 1, 'what are my options': 1, 'worth it': 1, 'is it legal': 1,
};

/** The lexicon by feature. */
export const LEXICON: Record<Feature, Terms> = {
  sexual,
  hate_and_discrimination: hateAndDiscrimination,
  violence_and_threats: violenceAndThreats,
  dangerous_and_criminal_content: dangerousAndCriminal,
  selfharm,
  health,
  financial,
  law,
  pii,
  group,
  hostile,
  advice,
};

/** Harmless idioms whose words must not count for any category. */
export const NEUTRAL: readonly string[] = [
  'kill the process', 'kill process', 'kill a process', 'kill the job', 'kill switch', 'killer feature', 'killed it',
  'killing it', 'kill time', 'killing time', 'dressed to kill', 'killing me', 'photo shoot', 'shoot a photo',
  'shoot an email', 'shoot me an email', 'the bomb', 'da bomb', 'bombed the exam', 'photobomb', 'dying to',
  'to die for', 'im dying', 'drop dead gorgeous', 'attack surface', 'hate speech', 'hate crime', 'break into tears',
  'break into a smile', 'steal the show', 'stole the show', 'pain in the neck', 'murder mystery',
  'sex of the baby', 'hack together', 'life hack', 'hackathon', 'execute the script', 'shares on social media',
];

/** Words that negate a term up to {@link NEGATION_WINDOW} words after them ("I would never hurt anyone"). */
export const NEGATORS: readonly string[] = [
  'not', 'no', 'never', 'dont', 'doesnt', 'didnt', 'wont', 'wouldnt', 'cant', 'cannot', 'isnt', 'arent', 'wasnt',
  'shouldnt', 'nor', 'neither', 'nobody',
];

export const NEGATION_WINDOW = 3;
